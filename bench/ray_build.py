"""Build throughput, local against Ray with 1 and 2 workers on the same corpus, and Ray's fixed
cost, measured on this machine (the inputs of docs/SCALING.md's cost model).

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.ray_build [--docs 300] [--workers 1,2]

Each build is a fresh `flat` index of the first N SciFact abstracts with `minilm`, one torch
thread per encoder (the local build's, each Ray actor's). Documents/s is documents over the
build's wall time (read to publish, model loading and Ray start included) and over its encode
stage; Ray's fixed cost is the wall time of a Ray build of 2 documents.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from bench.kit.benchkit import data_dir, write_results
from common import bertscope_home
from indexer import build_index, read_corpus
from indexer.ray import encode as raybuild


def one_build(docs, engine: str, workers: int) -> dict:
    import ray

    if ray.is_initialized():
        ray.shutdown()  # each Ray run starts its own local Ray with `workers` CPUs
    with tempfile.TemporaryDirectory(dir=bertscope_home()) as tmp:
        start = time.perf_counter()
        index = build_index(docs, Path(tmp) / "index", model="minilm", preset="flat",
                            engine=engine, workers=workers)
        wall = time.perf_counter() - start
        build, chunks = index.manifest["build"], index.stats().chunks
    stages = build["stages"]
    row = {"engine": engine, "workers": workers, "documents": len(docs), "chunks": chunks,
           "wall_s": round(wall, 1), "docs_per_s_wall": round(len(docs) / wall, 2),
           "docs_per_s_encode": round(len(docs) / stages["encode_s"], 2), "stages": stages}
    print(json.dumps(row), flush=True)
    return row


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=int, default=300)
    p.add_argument("--workers", default="1,2")
    p.add_argument("--per-shard", type=int, default=raybuild.DOCS_PER_SHARD,
                   help="documents per Ray shard (enough shards to keep every worker busy)")
    args = p.parse_args()
    raybuild.DOCS_PER_SHARD = args.per_shard
    import torch

    torch.set_num_threads(1)  # the local build's encoder: one thread, as each Ray actor
    docs = read_corpus(data_dir() / "scifact" / "corpus.jsonl").documents[: args.docs]
    rows = [one_build(docs[:2], "ray", 1)]  # warms the model cache; Ray's fixed cost
    rows[0]["what"] = "fixed cost (2 documents)"
    rows.append(one_build(docs, "local", 1))
    rows += [one_build(docs, "ray", int(w)) for w in args.workers.split(",")]
    payload = {"corpus": f"first {len(docs)} SciFact abstracts, {args.per_shard} per Ray shard",
               "model": "minilm", "rows": rows}
    write_results("ray_build", payload, table(payload))
    print(table(payload))
    return 0


def table(r: dict) -> str:
    lines = ["# Build throughput: local vs Ray (measured here)", "",
             f"- {r['corpus']}, `{r['model']}`, flat", "",
             "| engine | workers | documents | chunks | wall s | docs/s (wall) | docs/s (encode "
             "stage) | Ray start s | shard work s |", "|---|---|---|---|---|---|---|---|---|"]
    for row in r["rows"]:
        s = row["stages"]
        lines.append(f"| {row['engine']}{' — ' + row['what'] if 'what' in row else ''} | "
                     f"{row['workers']} | {row['documents']} | {row['chunks']} | "
                     f"{row['wall_s']} | {row['docs_per_s_wall']} | {row['docs_per_s_encode']} | "
                     f"{s.get('ray_start_s', '-')} | {s.get('shards_s', '-')} |")
    lines += ["", "This machine has 2 cores shared with other jobs, so the curve stops at 2 "
              "workers; see docs/SCALING.md for what is extrapolated from it."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
