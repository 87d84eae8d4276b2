"""A Ray build into milvus-lite, its workers writing the chunk rows as they encode, beside the
way there was before they did: a Ray build into a folder, then `migrate` into milvus-lite.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.ray_milvus [--docs 300] [--workers 2]

The same first N SciFact abstracts, `minilm`, flat, one torch thread per encoder, a fresh Ray
for each build (`ray_build.py`'s setting), after a 2-document warm-up build (imports, the model
cache). Wall time runs from the call to the index opened in Milvus; the stages are the build
manifest's (worker seconds summed over workers). Both results are checked to hold the same
chunks. Writes ray-milvus.md / .json to bench/results.
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
from indexer import SemanticIndex, build_index, read_corpus
from indexer.migrate import migrate
from indexer.ray import encode as raybuild


def fresh_ray() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()


def workers_write(docs, workers: int, tmp: Path) -> dict:
    fresh_ray()
    start = time.perf_counter()
    index = build_index(docs, f"milvus://{tmp}/direct.db?collection=direct", model="minilm",
                        preset="flat", engine="ray", workers=workers)
    build = index.manifest["build"]
    return {"way": "Ray build into milvus-lite, the workers write", "workers": workers,
            "wall_s": round(time.perf_counter() - start, 1), "chunks": index.counts()["chunks"],
            "written_by": build["chunk_rows_written_by"],
            "processes": len(build["chunk_rows_by_process"]), "stages": build["stages"]}


def folder_then_migrate(docs, workers: int, tmp: Path) -> dict:
    fresh_ray()
    start = time.perf_counter()
    folder = build_index(docs, tmp / "folder", model="minilm", preset="flat", engine="ray",
                         workers=workers)
    built = time.perf_counter() - start
    address = f"milvus://{tmp}/copy.db?collection=copy"
    migrate(folder.folder, address)  # verifies the copy (counts, a sample of vectors and texts)
    index = SemanticIndex.open(address)
    return {"way": "Ray build into a folder, then migrate", "workers": workers,
            "wall_s": round(time.perf_counter() - start, 1), "chunks": index.counts()["chunks"],
            "written_by": "migrate, after the build", "processes": 1,
            "stages": {**folder.manifest["build"]["stages"],
                       "migrate_s": round(time.perf_counter() - start - built, 3)}}


def table(r: dict) -> str:
    lines = ["# A Ray build into milvus-lite: workers writing, or a folder build then migrate",
             "", f"- {r['corpus']}, `{r['model']}`, flat, {r['workers']} Ray workers", "",
             "| way | wall s | chunks | chunk rows written by | encode s | worker insert s "
             "(summed) | driver's publish s | migrate s |",
             "|---|---:|---:|---|---:|---:|---:|---:|"]
    for row in r["rows"]:
        s = row["stages"]
        lines.append(f"| {row['way']} | {row['wall_s']} | {row['chunks']} | {row['written_by']} "
                     f"| {s.get('encode_s', '-')} | {s.get('worker_insert_s', '-')} | "
                     f"{s.get('insert_s', '-')} | {s.get('migrate_s', '-')} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=int, default=300)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--per-shard", type=int, default=25,
                   help="documents per Ray shard (enough shards to keep every worker busy)")
    args = p.parse_args()
    raybuild.DOCS_PER_SHARD = args.per_shard
    import torch

    torch.set_num_threads(1)
    docs = read_corpus(data_dir() / "scifact" / "corpus.jsonl").documents[: args.docs]
    with tempfile.TemporaryDirectory(dir=bertscope_home()) as tmp:
        folder_then_migrate(docs[:2], args.workers, Path(tmp))
    with tempfile.TemporaryDirectory(dir=bertscope_home()) as tmp:
        rows = [way(docs, args.workers, Path(tmp)) for way in (folder_then_migrate,
                                                                workers_write)]
    for row in rows:
        print(json.dumps(row), flush=True)
    if rows[0]["chunks"] != rows[1]["chunks"]:
        print(f"chunk counts differ: {rows[0]['chunks']} vs {rows[1]['chunks']}", file=sys.stderr)
        return 1
    payload = {"corpus": f"first {len(docs)} SciFact abstracts, {args.per_shard} per Ray shard",
               "model": "minilm", "workers": args.workers, "rows": rows}
    write_results("ray-milvus", payload, table(payload))
    print(table(payload))
    return 0


if __name__ == "__main__":
    sys.exit(main())
