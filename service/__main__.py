"""`python -m service`: see service/cli.py."""

from .cli import main

raise SystemExit(main())
