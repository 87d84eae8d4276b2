"""Where one in-process `index.search` spends its time (issue 30): dense and hybrid p50 / p95 over
SciFact queries on the default index, with each stage's share (query encode, FAISS, SQLite, BM25,
fusion, the Python around them), for this checkout and, side by side, for an older commit.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.search_hot --index indexes/bbc-news \
        --baseline 57db306 --rounds 3

Each round runs one fresh process per checkout, alternating (A B B A ...), so the load of a shared
machine falls on both alike; the figures pool every round. Stages are timed by wrapping the calls
the search makes (the encoder's `encode`, the FAISS index's `search`, every `indexer.db`
function, `LexicalIndex.search`, `fuse`); "other" is the rest of `index.search`. The baseline is
`git archive` of that commit in a temporary folder, importing its own library.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from bench.kit.benchkit import REPO, data_dir, portable, write_results
from bench.search_hot_worker import MODES, STAGES

WORKER = Path(__file__).resolve().parent / "search_hot_worker.py"


def checkout(commit: str, tmp: Path) -> Path:
    """`commit`'s files (git archive) in `tmp`/tree."""
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=REPO, check=True,
                             capture_output=True).stdout
    (tmp / "tree.tar").write_bytes(archive)
    with tarfile.open(tmp / "tree.tar") as fh:
        fh.extractall(tmp / "tree", filter="data")
    return tmp / "tree"


def run_worker(tree: Path, args, queries: Path, out: Path) -> dict:
    """`search_hot_worker.py` in a fresh process, run by its path (not `-m`, which would put this
    checkout first): `tree`'s library comes first through PYTHONPATH."""
    cmd = [sys.executable, str(WORKER), "--tree", str(tree), "--index", args.index,
           "--queries", str(queries), "--k", str(args.k), "--out", str(out)]
    if args.backend:
        cmd += ["--backend", args.backend]
    env = {**os.environ, "PYTHONPATH": str(tree),
           "BERTSCOPE_DATA": str(data_dir())}  # a baseline tree has no ../shared
    subprocess.run(cmd, check=True, cwd=REPO, env=env)
    return json.loads(out.read_text())


def summary(rows: list[dict]) -> dict:
    totals = sorted(r["total"] for r in rows)
    whole = sum(totals)
    out = {"p50_ms": 1000 * statistics.median(totals),
           "p95_ms": 1000 * totals[min(len(totals) - 1, round(0.95 * (len(totals) - 1)))],
           "cpu_p50_ms": 1000 * statistics.median(r["cpu"] for r in rows),
           "queries": len(rows)}
    for stage in (*STAGES, "other"):
        values = [r.get(stage, 0.0) if stage != "other" else
                  r["total"] - sum(r.get(s, 0.0) for s in STAGES) for r in rows]
        out[stage] = {"p50_ms": 1000 * statistics.median(values), "share": sum(values) / whole}
    return out


def table(results: dict[str, dict], meta: dict) -> str:
    lines = ["# The search hot path: one in-process `index.search`, dense and hybrid", "",
             "| code | mode | p50 ms | p95 ms | CPU p50 ms | " + " | ".join(
                 f"{s} p50 ms (share)" for s in (*STAGES, "other")) + " |",
             "|---|---|---:|---:|---:|" + "---:|" * (len(STAGES) + 1)]
    for code, res in results.items():
        for mode in MODES:
            s = res[mode]
            cells = [f"{s[x]['p50_ms']:.2f} ({100 * s[x]['share']:.0f}%)"
                     for x in (*STAGES, "other")]
            lines.append(f"| {code} | {mode} | {s['p50_ms']:.2f} | {s['p95_ms']:.2f} | "
                         f"{s['cpu_p50_ms']:.2f} | "
                         + " | ".join(cells) + " |")
    codes = list(results)
    if len(codes) == 2:
        new, old = (results[c] for c in codes)
        lines += ["", "| mode | p50 ratio (this / baseline) | p95 ratio | per round p50 ratios |",
                  "|---|---:|---:|---|"]
        for mode in MODES:
            rounds = ", ".join(f"{a / b:.2f}" for a, b in
                               zip(new["rounds"][mode], old["rounds"][mode], strict=True))
            lines.append(f"| {mode} | {new[mode]['p50_ms'] / old[mode]['p50_ms']:.2f} | "
                         f"{new[mode]['p95_ms'] / old[mode]['p95_ms']:.2f} | {rounds} |")
    lines += [""] + [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["- CPU: the process's CPU time during the call, all threads (ONNX Runtime's and "
              "OpenMP's, spinning included); on a loaded machine a steadier figure than the "
              "wall time.",
              "- share: the stage's time over all queries / index.search's; a stage's p50 is "
              "over queries (0 when a mode does not call it). other: checks, grouping chunks "
              "by document, Hit objects, everything not in a named stage.",
              "- Targets (issue 30): dense p50 <= 5 ms, hybrid p50 <= 8 ms. Issue 30's figures "
              "(2026-12-02, before this work): dense 9.07 ms (encode 4.21 ms), hybrid 16.93 ms, "
              "p95 ~29 ms."]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--index", default=str(Path(os.environ.get("BERTSCOPE_INDEX_ROOT")
                                               or "indexes") / "bbc-news"))
    p.add_argument("--backend", default=None, help="query encoder backend (default: the index's)")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--baseline", default=None, help="a commit to measure beside this checkout")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--name", default="search-hot")
    args = p.parse_args()
    if not (Path(args.index) / "manifest.json").is_file():
        raise SystemExit(f"no index at {args.index}: build the default one with "
                         f"`python -m indexer default --out {args.index}`, or pass --index")
    rows = [json.loads(line)["text"] for line in (data_dir() / "scifact" / "queries.jsonl").open()]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "queries.json").write_text(json.dumps(rows[: args.queries]))
        trees = {"this checkout": REPO}
        if args.baseline:
            trees[f"baseline {args.baseline}"] = checkout(args.baseline, work)
        pooled = {c: {m: [] for m in MODES} for c in trees}
        rounds = {c: {m: [] for m in MODES} for c in trees}
        info: dict[str, dict] = {}
        for r in range(args.rounds):
            order = list(trees.items())  # A B, then B A: neither always runs first
            for code, tree in order if r % 2 == 0 else order[::-1]:
                res = run_worker(tree, args, work / "queries.json", work / "out.json")
                info[code] = {k: v for k, v in res.items() if k != "rows"}
                for mode in MODES:
                    pooled[code][mode] += res["rows"][mode]
                    rounds[code][mode].append(summary(res["rows"][mode])["p50_ms"])
                print(f"round {r + 1} {code}: " + ", ".join(
                    f"{m} p50 {rounds[code][m][-1]:.2f} ms" for m in MODES), flush=True)
    results = {c: {**{m: summary(pooled[c][m]) for m in MODES}, "rounds": rounds[c]}
               for c in trees}
    meta = {"index": portable(args.index),
            "queries": f"{args.queries} SciFact train queries, one per call, the two modes in "
            f"turns (which goes first alternates), k={args.k}, per document",
            "rounds": f"{args.rounds}, one process per checkout each",
            "query encoder": {c: info[c]["backend"] for c in trees},
            "FAISS OpenMP threads available": info["this checkout"]["faiss_omp_threads"],
            "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY") or "unset",
            "load average at the end": f"{os.getloadavg()[0]:.1f}"}
    text = table(results, meta)
    write_results(args.name, {"meta": meta, "results": results, "workers": info}, text)
    print(text)


if __name__ == "__main__":
    main()
