"""Benchmarks: one script a question, each run from the repository root as `python -m bench.NAME`
(bench/README.md says which script answers which question, and where its figures are). Shared
helpers live in `bench.kit`. Product code never imports from here."""
