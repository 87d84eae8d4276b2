"""The bad-input probe: tries a few hundred mistakes on every entry point (the libraries, each
command of `python -m indexer` and `python -m training`, the app's pages) and writes what the
user gets to docs/BAD_INPUT.md. Run: `python -m tools.bad_input` (about ten minutes, minilm)."""
