"""`python -m bench.access_timing`: see the package's docstring."""

from . import main

main()
