"""The `bertscope` command: one entry point over the four (`bertscope index | train | serve |
app`), for an install that has no Makefile (`pip install bertscope-*.whl`)."""

__version__ = "0.1.0"
