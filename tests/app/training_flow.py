"""What the Training page's flow tests (AppTest and the real browser) start from: a home of their
own (its jobs), a runs root holding a tiny random BERT as the base model, a data root with a
small scored-pairs file, and an index root with the app tests' corpus indexed by that tiny model
(on torch, so re-indexing needs no export). No bundled model is loaded anywhere in the flow."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

BASE = "tiny-base"  # the base model's folder under the runs root
INDEX = "news-tiny"
PAIRS = "pairs.jsonl"


def pair_rows(n: int = 80) -> list[dict]:
    """Scored pairs (0-5) over a few repeated sentences: enough rows for a held-out dev part."""
    subjects = ["A man plays the guitar", "Oil prices rose", "The team won the final",
                "A woman slices an onion", "The bank raised rates", "A child reads a book"]
    rows = []
    for i in range(n):
        a, b = subjects[i % 6], subjects[(i * 5 + 1) % 6]
        same = i % 3 == 0
        rows.append({"sentence1": f"{a} ({i}).", "sentence2": f"{a if same else b} [{i}].",
                     "score": 4.5 if same else float(i % 3)})
    return rows


def training_folders(root: Path, tiny_model_dir: Path) -> dict[str, Path]:
    """The four folders under `root`, filled; returns the app's environment for them."""
    from corpus import DOCS

    from indexer import build_index

    home, runs, data, indexes = (root / n for n in ("home", "runs", "data", "indexes"))
    for folder in (home, runs, data, indexes):
        folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(tiny_model_dir, runs / BASE)
    (data / PAIRS).write_text("".join(json.dumps(r) + "\n" for r in pair_rows()),
                              encoding="utf-8")
    build_index(DOCS, indexes / INDEX, model=str(runs / BASE), preset="flat", backend="torch")
    return {"BERTSCOPE_HOME": home, "BERTSCOPE_RUNS_ROOT": runs, "BERTSCOPE_DATA": data,
            "BERTSCOPE_INDEX_ROOT": indexes}


def cancel_active(jobs_root: Path) -> None:
    """Stop what a failed test left running."""
    from common.jobs import JobRunner

    runner = JobRunner(jobs_root)
    for job in runner.jobs():
        if job.active:
            runner.cancel(job.id, grace_s=2)
