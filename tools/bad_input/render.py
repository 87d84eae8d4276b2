"""docs/BAD_INPUT.md from the probe's results: a summary, then one table per entry point."""

from __future__ import annotations

from datetime import date

HEADER = """# Bad input: what every entry point does with it

Each row below was **tried**, not imagined: `python -m tools.bad_input` runs every case
against this checkout (the CLIs in-process through their `main`, the libraries as calls, the
app's pages through Streamlit's `AppTest`, the HTTP service through an in-process client, all
with the bundled `minilm`, offline) and writes
this file. `W` is the probe's temporary workspace (corpora good and broken, a 6-document flat
index at `W/idx`, BEIR folders, STS files: `tools/bad_input/workspace.py`).

The bar each row is held to (the last column): no traceback; the input is refused when it is
wrong, with a message that names the file, line, field or flag and what would be accepted; an
odd but valid input works (the *expected* column says how). ✗ marks a row that fell short.

A damaged, contested or misplaced index folder (damaged files or manifest, several writers,
debris, `build --out` a file, a foreign or newer index) is the store's part of this table:
[STORE_ERRORS.md](STORE_ERRORS.md), with its tests; those rows are not repeated here.

Exit status of the CLIs: `0` done · `1` error, nothing changed · `2` a bad flag value
(argparse) or, for `python -m training`, any refused input · `3` partly done and saved
(`indexer delete` with unknown ids) · `130` interrupted. A model that gives every pair the same
cosine scores Spearman 0 in `training evaluate` (no correlation; `metrics.sts`), never `NaN`.

Regenerate after a change: `python -m tools.bad_input` (about {duration} here;
`--only "indexer delete"` runs one entry point and prints, without writing the file).
"""

STORE = """## Store: damaged indexes, foreign manifests, non-index folders (issue #10)

Rows for the store's own failure modes — `build` over a damaged index or a folder holding a
foreign `manifest.json`, `build` into a non-empty folder that is not an index, corruption
errors, concurrent writers — belong to the store work (#10) and are merged here from it. The
cases above avoid them on purpose.
"""


def _cell(text: str, limit: int = 260) -> str:
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("|", "\\|")


def _expected(case) -> str:
    if isinstance(case.expect, int):
        base = f"{case.unit} {case.expect}"
    else:
        base = {"refused": "refused", "accepted": "works", "warned": "works, with a warning"}[
            case.expect]
    if case.names:
        base += ", naming " + ", ".join(f"`{word}`" for word in case.names)
    return base + (f": {case.note}" if case.note else "")


def _duration(minutes: float) -> str:
    n = max(round(minutes), 1)
    return f"{n} minute" + ("s" if n > 1 else "")


def render(results, *, minutes: float) -> str:
    entries: dict[str, list] = {}
    for case, outcome, ok in results:
        entries.setdefault(case.entry, []).append((case, outcome, ok))
    lines = [HEADER.format(duration=_duration(minutes)), "",
             f"Last run: {date.today().isoformat()}, {len(results)} bad inputs.", "",
             "| entry point | bad inputs tried | as expected | fell short |",
             "|---|---:|---:|---:|"]
    for entry, rows in entries.items():
        good = sum(ok for _, _, ok in rows)
        lines.append(f"| [{entry}](#{_anchor(entry)}) | {len(rows)} | {good} | "
                     f"{len(rows) - good} |")
    for entry, rows in entries.items():
        lines += ["", f"## {entry}", "", "| # | bad input | expected | what the user gets | |",
                  "|---:|---|---|---|---|"]
        for n, (case, outcome, ok) in enumerate(rows, start=1):
            got = f"{outcome.what} · {outcome.message}" if outcome.message else outcome.what
            lines.append(f"| {n} | {_cell(case.bad, 90)} | {_cell(_expected(case), 120)} | "
                         f"{_cell(got)} | {'✓' if ok else '✗'} |")
    lines += ["", STORE]
    return "\n".join(lines)


def _anchor(title: str) -> str:
    keep = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -")
    return keep.replace(" ", "-")
