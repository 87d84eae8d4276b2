"""Where a saved write's time goes: `add` of the scale corpus's 1,000 extra passages (their
vectors given, the encoder loaded before the clock starts, as a running service has it), then
`delete` of them, each followed by `save`, on an index `python -m bench.scale` built. cProfile
attributes each one's seconds to the stages of a folder index's publication (BM25 rebuilt over
every chunk, the filter columns, the FAISS copy and write, the SQLite copy, checksums).

    python -m bench.scale.writes ~/.cache/bertscope/bench/scale/idx/folder-hnsw-100000/index \\
        ~/.cache/bertscope/bench/scale/c100000

Result: bench/results/scale-writes-<N>.md (`--stem NAME`: NAME.md, for another preset's index
of the same size). The index ends as it began (the passages are deleted
again); its versions move on."""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import time
from pathlib import Path

import numpy as np

from bench.kit.benchkit import write_results

# (label, a function's file suffix and name as cProfile names it): cumulative seconds of each
STAGES = (
    ("BM25 rebuilt over every chunk", ("common/lexical.py", "from_rows")),
    ("BM25 base segment built over every chunk", ("common/bm25_segments.py", "from_rows")),
    ("BM25 change applied to the segments", ("common/bm25_segments.py", "changed")),
    ("BM25 segments written", ("common/bm25_segments.py", "save")),
    ("filter columns rebuilt", ("indexer/folder/columns.py", "build")),
    ("filter columns extended", ("indexer/folder/columns_delta.py", "extend")),
    ("FAISS base copied (a merge or compact)", ("indexer/folder/store/vectors.py", "owned_copy")),
    ("FAISS delta merged into a new base", ("indexer/folder/store/vector_segments.py", "merge")),
    ("FAISS saved (base linked or written, delta)",
     ("indexer/folder/store/vector_segments.py", "save")),
    ("FAISS base written", ("indexer/folder/store/vectors.py", "write_vectors")),
    ("SQLite copied for the writer", ("indexer/folder/db.py", "open_writable")),
    ("SQLite rows written", ("indexer/folder/changes.py", "_change")),
    ("checksums and fsync at publish", ("indexer/folder/store/publishing.py", "publish")),
)


def stage_seconds(stats: pstats.Stats) -> dict[str, float]:
    """Cumulative seconds of each of STAGES in `stats` (0 where it did not run)."""
    out = {label: 0.0 for label, _ in STAGES}
    for (path, _line, func), (_cc, _nc, _tt, cum, _callers) in stats.stats.items():
        for label, (suffix, name) in STAGES:
            if func == name and path.endswith(suffix):
                out[label] += cum
    return out


def profiled(fn) -> tuple[float, dict[str, float]]:
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    fn()
    prof.disable()
    return time.perf_counter() - start, stage_seconds(pstats.Stats(prof))


def render(n: int, rows: dict[str, tuple[float, dict[str, float]]]) -> str:
    lines = [f"# Where a saved write's time goes, {n:,} chunks", "",
             "| stage | " + " | ".join(f"{k} s" for k in rows) + " |",
             "|---|" + "---:|" * len(rows)]
    for label, _ in STAGES:
        lines.append(f"| {label} | " + " | ".join(f"{r[1][label]:.2f}" for r in rows.values())
                     + " |")
    lines.append("| **whole write and save** | " + " | ".join(
        f"**{r[0]:.2f}**" for r in rows.values()) + " |")
    lines += ["", "Each stage is cProfile's cumulative time of one function (STAGES in "
              "bench/scale/writes.py); the rest of a write is chunking, tokenising the new "
              "rows and Python around them. cProfile's own overhead is in every figure.", ""]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.scale.writes", description=__doc__)
    p.add_argument("index", type=Path, help="a folder index the scale bench built")
    p.add_argument("corpus_dir", type=Path, help="its corpus folder (add.jsonl, add.npy)")
    p.add_argument("--stem", help="the result file's name (default: scale-writes-<chunks>)")
    args = p.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    for name in ("add.jsonl", "add.npy"):
        if not (args.corpus_dir / name).is_file():
            raise SystemExit(f"{args.corpus_dir / name} not found: make the corpus with "
                             "`python -m bench.scale --sizes N --steps none`")
    from indexer import SemanticIndex

    with open(args.corpus_dir / "add.jsonl", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    docs = [{"id": r.pop("id"), "title": r.pop("title"), "text": r.pop("text"), "metadata": r}
            for r in rows]
    vectors = np.load(args.corpus_dir / "add.npy")
    index = SemanticIndex.open(args.index)
    n = len(index)
    index.encoder  # noqa: B018 - loaded before the clock, as in a running service
    results = {"add 1,000 + save": profiled(lambda: (index.add(docs, vectors=vectors),
                                                      index.save())),
               "delete 1,000 + save": profiled(lambda: (index.delete([d["id"] for d in docs]),
                                                         index.save()))}
    write_results(args.stem or f"scale-writes-{n}", {"chunks": n, "rows": {
        k: {"total_s": round(t, 3), "stages_s": {s: round(v, 3) for s, v in st.items()}}
        for k, (t, st) in results.items()}}, render(n, results))
    print(render(n, results))


if __name__ == "__main__":
    main()
