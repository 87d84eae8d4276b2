"""`python -m training ...`: see `training/cli.py` and training/README.md."""

import sys

from .cli import main

sys.exit(main())
