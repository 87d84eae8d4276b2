"""`ivfpq-disk` at 1M vectors: build time, recall@10 against exact search at default knobs and
over a small knob sweep, single-thread QPS, and the memory of a separate process serving it.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.disk [--size 1000000] [--corpora scifact,thucnews]

Vectors are made the way bench/search.py makes them (its `real_vectors`, `grow`, held-out noisy
queries), from the corpora named; `--partial` corpora use the finished shards of an unfinished
encoding. The index is built in memory, written as the vectors folder of `ivfpq-disk` and then
opened by a fresh process (`--serve`), which reports its RSS (psutil) before and after the
queries: the lists and re-rank rows are mapped files, so they count in RSS only as the pages the
queries touch (shared, file-backed), never as private memory.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import faiss
import numpy as np

from bench.kit.benchkit import REPO, write_results
from bench.kit.vectorkit import K, grow, held_out_queries, qps, real_vectors, recall
from common import bertscope_home, data_root
from indexer.diskivf import INDEX, LISTS, RERANK, DiskIVFPQ
from indexer.presets import (
    check_knobs,
    create,
    search_params,
    spec_for,
    train,
    train_and_add,
    train_sample_size,
)
from indexer.ray.ivf import SEED, add_shard, sample

PASSES = 3  # QPS: the best of this many passes (other jobs share the 2 cores)
SWEEP = [(8, 16), (16, 16), (32, 16), (64, 16), (16, 32), (32, 32), (64, 32), (128, 32)]


def serve(folder: Path, queries: np.ndarray, truth: np.ndarray, spec_json: str) -> dict:
    """In this (fresh) process: open the folder, measure RSS, queries, RSS again."""
    import psutil

    from indexer.presets import Spec

    proc = psutil.Process()
    faiss.omp_set_num_threads(1)
    before = proc.memory_full_info()
    start = time.perf_counter()
    index = DiskIVFPQ.read(folder)
    open_s = time.perf_counter() - start
    opened = proc.memory_full_info()
    spec = Spec(**json.loads(spec_json))
    rows = []
    for knobs in [{}] + [{"nprobe": p, "rerank": r} for p, r in SWEEP]:
        full = check_knobs(spec, knobs)
        params = search_params(spec, full, None, index)
        speed, found = best_qps(lambda q, params=params: index.search(q, K, params)[1], queries)
        rows.append({"knobs": full, "default": not knobs, "qps": round(speed, 1),
                     "recall@10": round(recall(found, truth), 4)})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    after = proc.memory_full_info()

    def mb(info) -> dict:  # file-backed: mapped pages (page cache); anonymous: the process's own
        return {"rss": round(info.rss / 2**20, 1), "file_backed": round(info.shared / 2**20, 1),
                "anonymous": round((info.rss - info.shared) / 2**20, 1)}

    return {"open_s": round(open_s, 2), "before_open": mb(before), "after_open": mb(opened),
            "after_queries": mb(after), "rows": rows}


def build_as_ray_does(spec, base: np.ndarray, work: Path, shards: int) -> dict:
    """The Ray build's ivfpq-disk path, run here one shard after another: train once on its
    sample, add each shard to a copy of the trained index (an IVF shard file), merge the lists
    on disk into `work/vectors`. Returns seconds per stage."""
    out, clock = {}, time.perf_counter()
    index = create(spec, base.shape[1])
    train(index, sample([base], train_sample_size(index.nlist), SEED), SEED)
    faiss.write_index(index.ivf, str(work / "trained.faiss"))
    out["train_s"], clock = time.perf_counter() - clock, time.perf_counter()
    bounds = np.linspace(0, len(base), shards + 1).astype(int)
    files = []
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        np.save(work / f"shard-{i}.npy", base[lo:hi])
        files.append(work / f"ivf-{i}.faiss")
        add_shard(str(work / "trained.faiss"), str(work / f"shard-{i}.npy"), int(lo),
                  str(files[-1]))
    out["add_s"], clock = time.perf_counter() - clock, time.perf_counter()
    parts = [np.load(work / f"shard-{i}.npy", mmap_mode="r") for i in range(shards)]
    merged: dict[str, float] = {}
    DiskIVFPQ.merge(work / "trained.faiss", files, parts, work / "vectors", merged)
    out["merge_s"] = time.perf_counter() - clock
    out["merge_lists_s"], out["merge_rows_s"] = merged["lists_s"], merged["rows_s"]
    return out


def best_qps(fn, queries: np.ndarray) -> tuple[float, np.ndarray]:
    """`qps` of the least disturbed of PASSES passes (the results are the same each pass)."""
    runs = [qps(fn, queries) for _ in range(PASSES)]
    return max(r[0] for r in runs), runs[0][1]


def in_ram_ivfpq(base: np.ndarray, queries: np.ndarray, truth: np.ndarray, threads: int) -> dict:
    """The `ivfpq` preset (IDMap2 + RFlat: full vectors in RAM) on the same data, same sweep."""
    spec = spec_for("ivfpq", len(base), base.shape[1])
    faiss.omp_set_num_threads(threads)
    start = time.perf_counter()
    index = create(spec, base.shape[1])
    train_and_add(index, base, np.arange(len(base), dtype=np.int64))
    out = {"spec": spec.factory, "build_s": round(time.perf_counter() - start, 1), "rows": []}
    faiss.omp_set_num_threads(1)
    for knobs in [{}] + [{"nprobe": p, "rerank": r} for p, r in SWEEP]:
        full = check_knobs(spec, knobs)
        params = search_params(spec, full, None, index)
        speed, found = best_qps(lambda q, params=params: index.search(q, K, params=params)[1],
                                queries)
        out["rows"].append({"knobs": full, "default": not knobs, "qps": round(speed, 1),
                            "recall@10": round(recall(found, truth), 4)})
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=1_000_000)
    p.add_argument("--corpora", default="thucnews,scifact,20newsgroups")
    p.add_argument("--partial", default="", help="corpora whose finished shards may be used")
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--threads", type=int, default=2, help="threads for building (queries: 1)")
    p.add_argument("--shards", type=int, default=8, help="IVF shards added one by one, merged")
    p.add_argument("--data", default=str(data_root()), help="data root (default $BERTSCOPE_DATA)")
    p.add_argument("--serve", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve:
        work = Path(args.serve)
        out = serve(work / "vectors", np.load(work / "queries.npy"), np.load(work / "truth.npy"),
                    (work / "spec.json").read_text())
        print(json.dumps(out))
        return 0

    home = bertscope_home() / "bench"
    parts, used = [], []
    for name in args.corpora.split(","):
        vecs = real_vectors(name, Path(args.data), None, home, name in args.partial.split(","))
        parts.append(vecs)
        used.append(f"{name}: {len(vecs)} chunks")
    real, queries = held_out_queries(np.vstack(parts), args.queries)  # as bench/search.py
    base = grow(real, args.size, np.random.default_rng(1))
    n, dim = base.shape
    print(f"{n} vectors from {', '.join(used)}", flush=True)

    exact = faiss.IndexFlatIP(dim)
    exact.add(base)
    faiss.omp_set_num_threads(args.threads)
    _, truth = exact.search(queries, K)
    del exact
    in_ram = in_ram_ivfpq(base, queries, truth, args.threads)  # side by side, same load
    spec = spec_for("ivfpq-disk", n, dim)
    with tempfile.TemporaryDirectory(dir=bertscope_home()) as tmp:
        work = Path(tmp)
        timed = build_as_ray_does(spec, base, work, args.shards)
        build_s = timed["train_s"] + timed["add_s"] + timed["merge_s"]
        del base
        sizes = {name: (work / "vectors" / name).stat().st_size for name in (INDEX, LISTS, RERANK)}
        np.save(work / "queries.npy", queries)
        np.save(work / "truth.npy", truth)
        (work / "spec.json").write_text(json.dumps(spec.__dict__))
        done = subprocess.run([sys.executable, "-m", "bench.disk", "--serve", str(work)],
                              check=True, cwd=REPO, capture_output=True, text=True)
        served = json.loads(done.stdout.strip().splitlines()[-1])
    payload = {"vectors": n, "from": used, "spec": spec.factory, "default_knobs": spec.knobs,
               "build_s": round(build_s, 1), **{k: round(v, 2) for k, v in timed.items()},
               "shards": args.shards,
               "bytes_per_vector": {k: round(v / n, 1) for k, v in sizes.items()},
               "build_threads": args.threads, **served,
               "ivfpq_in_ram": in_ram}
    write_results("disk", payload, table(payload))
    print(table(payload))
    return 0


def knob_table(rows: list[dict]) -> list[str]:
    out = [f"| nprobe | rerank | recall@10 | QPS (1 thread, best of {PASSES} passes) |",
           "|---|---|---|---|"]
    for row in rows:
        k, mark = row["knobs"], " (default)" if row["default"] else ""
        out.append(f"| {k['nprobe']}{mark} | {k['rerank']} | {row['recall@10']} | {row['qps']} |")
    return out


def table(r: dict) -> str:
    b = r["bytes_per_vector"]
    lines = [f"# ivfpq-disk at {r['vectors']:,} vectors ({r['spec']})", "",
             f"- vectors: {', '.join(r['from'])}, grown as bench/search.py grows them; "
             "300 held-out noisy queries",
             f"- built as the Ray build builds it, one shard after another, {r['build_threads']} "
             f"threads: {r['build_s']} s = training on the sample {r['train_s']} s + adding "
             f"{r['shards']} shards (each into its own IVF shard file) {r['add_s']} s + merging "
             f"their lists on disk (merge_ondisk) {r['merge_lists_s']} s and writing the "
             f"re-rank rows {r['merge_rows_s']} s",
             f"- bytes per vector: {b[INDEX]} in `{INDEX}` (centroids, PQ tables: read into "
             f"RAM), {b[LISTS]} in `{LISTS}` (PQ codes + ids, mapped), {b[RERANK]} in "
             f"`{RERANK}` (float re-rank rows, mapped, on disk)",
             "- serving process (psutil, MiB; file-backed = mapped pages of the index files "
             f"that the queries touched, reclaimable page cache): before open {r['before_open']}"
             f", after open {r['after_open']} ({r['open_s']} s), after the sweep "
             f"{r['after_queries']}", "", *knob_table(r["rows"])]
    ram = r["ivfpq_in_ram"]
    lines += ["", f"Side by side in the same run: `ivfpq` ({ram['spec']}, every vector in RAM), "
              f"built in {ram['build_s']} s:", "", *knob_table(ram["rows"])]
    lines += ["", "Warm page cache (the folder was just written); a cold disk adds a read per "
              "list visited and per re-ranked row."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
