"""How long does `python -m training adapt` take on this machine's CPU for about 5k documents
(the issue's bar: 30 minutes on 2 cores), and what does its own check say?

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.adapt_cpu [--work DIR] [--name adapt_cpu]

Builds (once, kept under `$BERTSCOPE_HOME/bench/adapt-cpu`) the default-settings minilm index of
all 5,183 SciFact abstracts from `$BERTSCOPE_DATA/scifact`, then runs the product's command with
its defaults, as a user would: `python -m training adapt --index IDX --out RUN`. Reports the
command's wall time, the CPU seconds it and its children used, the load average before and
after (other work on the machine stretches the wall time, not the CPU seconds), and the
adaptation's own record (pairs, steps, held-out check before/after, verdict). Then, as a user
would, re-indexes with the adapted model (`indexer rebuild`: the same chunks) and scores both
indexes on SciFact's 809 judged train queries (`indexer eval`, dense and hybrid): queries the
adaptation never saw (it reads only the corpus). Per pair source and seed, with held-out splits
and intervals: `bench/adapt_scifact.py`'s table (the same training code, on a GPU).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.kit.benchkit import REPO, RESULTS, data_dir, write_results
from common import bertscope_home


def run(argv: list[str]) -> tuple[float, float]:
    """Run `argv` from the repository; (wall s, CPU s of it and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=REPO, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def ndcg(index: Path, mode: str) -> float:
    """nDCG@10 of `index` on SciFact's train queries, as `python -m indexer eval` prints it."""
    done = subprocess.run([sys.executable, "-m", "indexer", "eval", str(index), "--beir",
                           str(data_dir() / "scifact"), "--split", "train", "--mode", mode],
                          cwd=REPO, check=True, capture_output=True, text=True)
    return float(re.search(r"ndcg@10 ([0-9.]+)", done.stdout).group(1))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--work", default=str(bertscope_home("bench") / "adapt-cpu"))
    p.add_argument("--name", default="adapt_cpu")
    p.add_argument("--out", default=RESULTS)
    args = p.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    index, run_dir = work / "scifact-minilm", work / "run"
    python = [sys.executable, "-m"]
    if not (index / "manifest.json").is_file():
        run(python + ["indexer", "build", "--corpus", str(data_dir() / "scifact" / "corpus.jsonl"),
                      "--out", str(index), "--model", "minilm"])
    shutil.rmtree(run_dir, ignore_errors=True)
    load_before = os.getloadavg()
    wall, cpu = run(python + ["training", "adapt", "--index", str(index), "--out", str(run_dir),
                              "--no-progress"])
    load_after = os.getloadavg()
    # the run's record, with this machine's folder written as WORK (results name no home)
    record = json.loads((run_dir / "adapt.json").read_text(encoding="utf-8")
                        .replace(str(work), "WORK"))
    adapted = work / "scifact-adapted"
    shutil.rmtree(adapted, ignore_errors=True)
    run(python + ["indexer", "rebuild", str(index), "--model", str(run_dir), "--out",
                  str(adapted)])
    scores = {mode: {"bundled": ndcg(index, mode), "adapted": ndcg(adapted, mode)}
              for mode in ("dense", "hybrid")}
    figures = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
               "load_before": [round(x, 2) for x in load_before],
               "load_after": [round(x, 2) for x in load_after], "cores": os.cpu_count(),
               "record": record, "scifact_train_ndcg10": scores}
    write_results(args.name, figures, table(figures), folder=args.out)
    print(table(figures))
    return 0


def table(f: dict) -> str:
    r = f["record"]
    before, after = r.get("before", {}), r.get("after", {})
    pairs = ", ".join(f"{n:,} {s}" for s, n in r.get("pairs", {}).items())
    return "\n".join([
        "# `python -m training adapt` on 5,183 SciFact abstracts, its defaults, this CPU", "",
        "| wall | CPU s (all processes) | load before → after (1/5/15 min) | pairs | "
        "self-check nDCG@10 before → after | verdict |",
        "|---:|---:|---|---|---|---|",
        f"| {f['wall_s'] / 60:.1f} min ({f['wall_s']} s) | {f['cpu_s']} | {f['load_before']} → "
        f"{f['load_after']} | {pairs} | {before.get('ndcg@10', '?')} → {after.get('ndcg@10', '?')}"
        f" | {r.get('verdict', {}).get('text', '?')} |", "",
        "The same adapted model re-indexed (the same chunks) and scored on SciFact's 809 judged "
        "train queries, which it never saw (adaptation reads only the corpus):", "",
        "| mode | bundled nDCG@10 | adapted nDCG@10 | difference |", "|---|---:|---:|---:|",
        *[f"| {mode} | {s['bundled']:.4f} | {s['adapted']:.4f} | "
          f"{s['adapted'] - s['bundled']:+.4f} |"
          for mode, s in f["scifact_train_ndcg10"].items()], ""])


if __name__ == "__main__":
    raise SystemExit(main())
