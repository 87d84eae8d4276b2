"""`python -m bertscope ...`: see bertscope/cli.py."""

from .cli import main

raise SystemExit(main())
