"""Figures a benchmark measured live in bench/results/, not in the product's docstrings and
comments, where they rot as the code and the machines change: a docstring or comment block that
cites a benchmark says what was decided and which result file shows why, without the number."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PRODUCT = ("common", "metrics", "encoder", "indexer", "training", "service", "rag", "app",
           "bertscope")
CITES_BENCH = re.compile(r"\bbench/")
FIGURE = re.compile(r"\d(\.\d+)?\s?(ms|s|x|×|KiB|MiB|GiB|MB|GB|requests/s|docs/s|q/s)(?!\w)"
                    r"|\d\s?%(?! interval)|\b0\.\d{3,}\b")  # a 95 % interval is a setting
# comments inside indexer/, which the store-layout half of issue #49 is reshaping: left to it
LEFT_TO_THE_INDEXER_WORK = {"indexer/fusion.py", "indexer/folder/search.py", "indexer/stats.py"}


def blocks(source: str) -> list[tuple[int, str]]:
    """(first line, text) of every docstring and every run of comment lines on adjacent lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                found.append((node.body[0].lineno, doc))
    run: list[tuple[int, str]] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        if run and tok.start[0] != run[-1][0] + 1:
            found.append((run[0][0], "\n".join(t for _, t in run)))
            run = []
        run.append((tok.start[0], tok.string))
    if run:
        found.append((run[0][0], "\n".join(t for _, t in run)))
    return found


def figures_beside_bench_citations(path: Path, root: Path = REPO) -> list[str]:
    return [f"{path.relative_to(root)}:{line}: {FIGURE.search(text).group(0)!r}"
            for line, text in blocks(path.read_text(encoding="utf-8"))
            if CITES_BENCH.search(text) and FIGURE.search(text)]


def test_no_product_docstring_or_comment_quotes_a_bench_figure():
    found = [hit for package in PRODUCT for path in sorted((REPO / package).rglob("*.py"))
             if str(path.relative_to(REPO)) not in LEFT_TO_THE_INDEXER_WORK
             for hit in figures_beside_bench_citations(path)]
    assert not found, f"cite the result file, not the figure: {found}"


def test_the_check_sees_a_figure_beside_a_citation(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""Fast: 3.3 ms p50 (bench/results/serve.md)."""\n\n'
                      "# the default won (bench/results/fusion.md)\n"
                      "# with 0.7259 against 0.711\n"
                      "X = 1  # 16 ms, but no citation here\n", encoding="utf-8")
    hits = figures_beside_bench_citations(sample, tmp_path)
    assert [h.split(":")[1] for h in hits] == ["1", "3"]
