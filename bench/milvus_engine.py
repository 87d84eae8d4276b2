"""milvus-lite (the Milvus engine embedded in Python, what a `milvus://PATH.db` index runs on)
beside FAISS HNSW (the folder store's `hnsw` preset) on one set of clustered vectors, in one run.

    .venv/bin/python -m bench.milvus_engine [--n 1000000] [--queries 300]

Vectors: `--n` unit vectors of 384 dimensions drawn from a mixture of n/1000 Gaussian clusters
in a 32-dimensional space, mapped into 384 dimensions by a fixed random projection, plus small
isotropic noise (so neighbours are clustered, with a low intrinsic dimension as real embeddings
have, not the uniform noise on which no ANN index works); queries are fresh draws from the same
mixture, none in the base set. Truth: exact inner-product top 10 (FAISS IndexFlatIP).
Both engines build HNSW with M=32, efConstruction=80 (the `hnsw` preset's values) and search
by inner product. Each engine runs in its own process, so its memory is its own:
  - build s: FAISS `add`; milvus-lite insert (10,000 rows a call) + flush + index + load;
  - memory: resident set size (RSS) once built and the input array dropped, less the process's
    RSS before the vectors were read; peak RSS of the process (input included);
  - queries/s: one query per call on one thread, for each ef of the sweep; recall@10 against
    exact; the headline is the cheapest ef whose recall@10 >= 0.95. An engine whose queries
    are slow (milvus-lite at 1M: seconds each) runs the first n queries, n sized to take about
    --budget seconds per ef (at least 30), and the table says n.
bench/results/<name>.json and .md (default milvus-engine) are written at the end.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import faiss
import numpy as np
import psutil

from bench.kit.benchkit import REPO, write_results
from common import bertscope_home
from indexer.presets import HNSW_EF_CONSTRUCTION, HNSW_M

DIM, LATENT, K, TARGET = 384, 32, 10, 0.95
EFS = (16, 32, 64, 128, 256, 512)
MIN_QUERIES = 30
BUDGET_S = 60.0  # seconds of queries per ef, at most (about)
BATCH = 10_000
ENGINES = ("faiss-hnsw", "milvus-lite")


def say(text: str) -> None:
    """Progress, on stderr: a worker's stdout carries its result alone."""
    print(text, file=sys.stderr, flush=True)


# -- data --------------------------------------------------------------------------------------
def draw(n: int, rng: np.random.Generator, centres: np.ndarray, projection: np.ndarray,
         chunk: int = 100_000) -> np.ndarray:
    """`n` unit vectors from the mixture, made `chunk` rows at a time."""
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        latent = centres[rng.integers(0, len(centres), m)] + 0.35 * rng.standard_normal(
            (m, LATENT), dtype=np.float32)
        block = latent @ projection + 0.02 * rng.standard_normal((m, DIM), dtype=np.float32)
        faiss.normalize_L2(block)
        out[start : start + m] = block
    return out


def prepare(work: Path, n: int, queries: int) -> None:
    """base.npy, queries.npy and truth.npy (exact top K) in `work`, seeded."""
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((max(10, n // 1000), LATENT), dtype=np.float32)
    projection = rng.standard_normal((LATENT, DIM), dtype=np.float32) / LATENT**0.5
    base, query = draw(n, rng, centres, projection), draw(queries, rng, centres, projection)
    exact = faiss.IndexFlatIP(DIM)
    exact.add(base)
    truth = exact.search(query, K)[1]
    for name, array in (("base", base), ("queries", query), ("truth", truth)):
        np.save(work / f"{name}.npy", array)


# -- one engine, in its own process ------------------------------------------------------------
def rss() -> int:
    return psutil.Process().memory_info().rss


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(f) & set(t)) / K for f, t in zip(found, truth, strict=True)]))


def sweep(search, queries: np.ndarray, truth: np.ndarray, budget_s: float) -> list[dict]:
    """Queries/s and recall@10 of `search(query, ef) -> ids` for each ef, one query a call, over
    the first n queries: all of them, or as many as take about `budget_s` per ef at the
    latency of 5 warm-up queries (at least MIN_QUERIES; milvus-lite's search time grows with
    the rows it holds)."""
    start = time.perf_counter()
    for q in queries[:5]:
        search(q, EFS[0])  # warm up
    latency = (time.perf_counter() - start) / 5
    n = min(len(queries), max(MIN_QUERIES, int(budget_s / max(latency, 1e-9))))
    if n < len(queries):
        say(f"    {latency * 1000:.0f} ms a query: {n} of the {len(queries)} queries per ef")
    rows = []
    for ef in EFS:
        start = time.perf_counter()
        found = [search(q, ef) for q in queries[:n]]
        seconds = time.perf_counter() - start
        rows.append({"ef": ef, "queries": n, "qps": n / seconds,
                     "recall": recall(found, truth[:n])})
        say(f"    ef={ef}: {rows[-1]['qps']:.1f} q/s, recall@10 {rows[-1]['recall']:.4f}")
    return rows


def run_faiss(base: np.ndarray, work: Path, client=None) -> tuple[dict, object]:
    index = faiss.index_factory(DIM, f"HNSW{HNSW_M},Flat", faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
    start = time.perf_counter()
    index.add(base)
    build = {"build_s": time.perf_counter() - start}
    faiss.write_index(index, str(work / "faiss-hnsw.index"))
    build["disk_bytes"] = (work / "faiss-hnsw.index").stat().st_size

    def search(q: np.ndarray, ef: int) -> list[int]:
        params = faiss.SearchParametersHNSW(efSearch=ef)
        return index.search(q[None, :], K, params=params)[1][0].tolist()

    return build, search


def start_milvus(work: Path):
    """A milvus-lite client on a fresh .db in `work`, with an empty collection `bench`."""
    from pymilvus import DataType, MilvusClient

    db = work / "milvus-lite.db"
    shutil.rmtree(db, ignore_errors=True)
    client = MilvusClient(str(db))
    schema = MilvusClient.create_schema(auto_id=False)
    schema.add_field("id", DataType.INT64, is_primary=True)
    schema.add_field("vec", DataType.FLOAT_VECTOR, dim=DIM)
    client.create_collection("bench", schema=schema)
    return client


def run_milvus(base: np.ndarray, work: Path, client) -> tuple[dict, object]:
    db = work / "milvus-lite.db"
    build: dict = {}
    start = time.perf_counter()
    for lo in range(0, len(base), BATCH):
        client.insert("bench", [{"id": i, "vec": base[i]}
                                for i in range(lo, min(len(base), lo + BATCH))])
        if lo // BATCH % 10 == 9:
            say(f"    inserted {lo + BATCH:,} rows, {time.perf_counter() - start:.0f} s")
    client.flush("bench")
    build["insert_s"] = time.perf_counter() - start
    mark = time.perf_counter()
    client.release_collection("bench")
    params = client.prepare_index_params()
    params.add_index("vec", index_type="HNSW", metric_type="IP",
                     params={"M": HNSW_M, "efConstruction": HNSW_EF_CONSTRUCTION})
    try:
        client.create_index("bench", params)
    except Exception as exc:  # noqa: BLE001 - see below
        # at 1M rows the call outlasts gRPC's keepalive (GOAWAY "too_many_pings"); pymilvus
        # retries it and the retry finds the index the first call built
        if "index already exists" not in str(exc):
            raise
    client.load_collection("bench")
    build["index_s"] = time.perf_counter() - mark
    build["build_s"] = time.perf_counter() - start
    build["disk_bytes"] = sum(f.stat().st_size for f in db.rglob("*") if f.is_file())

    def search(q: np.ndarray, ef: int) -> list[int]:
        hits = client.search("bench", data=[q.tolist()], limit=K, anns_field="vec",
                             search_params={"metric_type": "IP", "params": {"ef": ef}},
                             output_fields=[])
        return [h["id"] for h in hits[0]]

    return build, search


def worker(engine: str, work: Path, budget_s: float = BUDGET_S) -> dict:
    """Build `engine` over the vectors in `work` and sweep it; the figures as a dict."""
    queries, truth = np.load(work / "queries.npy"), np.load(work / "truth.npy")
    started = rss()
    client = start_milvus(work) if engine == "milvus-lite" else None
    before = rss()  # the engine's own start (milvus-lite: its in-process server) is not the index
    base = np.load(work / "base.npy")
    say(f"  {engine}: building over {len(base):,} vectors")
    build, search = (run_faiss if engine == "faiss-hnsw" else run_milvus)(base, work, client)
    del base
    gc.collect()
    memory = rss() - before
    faiss.omp_set_num_threads(1)  # queries on one thread (milvus-lite's HNSW is FAISS too)
    say(f"  {engine}: built in {build['build_s']:.1f} s, {memory / 2**20:.0f} MiB")
    rows = sweep(search, queries, truth, budget_s)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return {"engine": engine, **build, "start_rss_bytes": before - started,
            "index_rss_bytes": memory, "peak_rss_bytes": peak,
            "sweep": rows}


# -- the run -----------------------------------------------------------------------------------
def headline(result: dict) -> dict:
    """The cheapest ef reaching TARGET recall, else the best recall reached."""
    ok = [r for r in result["sweep"] if r["recall"] >= TARGET]
    return ok[0] if ok else max(result["sweep"], key=lambda r: r["recall"])


def table(n: int, queries: int, results: list[dict], load: tuple) -> str:
    mib = 2**20
    lines = [f"# milvus-lite beside FAISS HNSW: {n:,} clustered 384-d vectors, {queries} queries",
             "",
             f"Both HNSW M={HNSW_M}, efConstruction={HNSW_EF_CONSTRUCTION}, inner product; "
             "queries one per call on one thread (milvus-lite's through pymilvus's gRPC to its "
             "in-process server, as a `milvus://` index is searched). Memory: RSS once built "
             "with the input array dropped, less RSS before the vectors were read; engine start: "
             "what starting the engine (an empty collection) added. Load average at start: "
             f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}.", "",
             "| engine | build s | of which insert s | memory MiB | peak RSS MiB | disk MiB | "
             f"queries/s at recall@10 ≥ {TARGET} | at ef | its recall@10 | over queries |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        h = headline(r)
        insert = f"{r['insert_s']:.1f}" if "insert_s" in r else "-"
        lines.append(f"| {r['engine']} | {r['build_s']:.1f} | {insert} | "
                     f"{r['index_rss_bytes'] / mib:.0f} | {r['peak_rss_bytes'] / mib:.0f} | "
                     f"{r['disk_bytes'] / mib:.0f} | {h['qps']:.1f} | {h['ef']} | "
                     f"{h['recall']:.4f} | {h['queries']} |")
    lines += ["", "engine start MiB: " + ", ".join(
        f"{r['engine']} {r['start_rss_bytes'] / mib:.0f}" for r in results)]
    lines += ["", "Over queries: the first n queries, where an engine's queries were too slow "
              "for all of them in the --budget seconds per ef (milvus-lite's search does work "
              "in Python for every row it holds, so its time per query grows with the rows).",
              "", "## the ef sweep", "", "| engine | ef | queries/s | recall@10 | queries |",
              "|---|---|---|---|---|"]
    for r in results:
        lines += [f"| {r['engine']} | {s['ef']} | {s['qps']:.1f} | {s['recall']:.4f} | "
                  f"{s['queries']} |" for s in r["sweep"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1_000_000, help="base vectors (default 1,000,000)")
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--budget", type=float, default=BUDGET_S,
                   help="seconds of queries per ef, about (fewer queries where they are slow)")
    p.add_argument("--name", default="milvus-engine", help="bench/results/NAME.json and .md")
    p.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    p.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker, args.data, args.budget)), flush=True)
        return
    load = os.getloadavg()
    work = bertscope_home() / "bench" / f"milvus-engine-{args.n}"
    work.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    prepare(work, args.n, args.queries)
    say(f"data and exact truth: {time.perf_counter() - start:.1f} s")
    results = []
    for engine in args.engines.split(","):
        out = subprocess.run([sys.executable, "-m", "bench.milvus_engine", "--worker", engine,
                              "--data", str(work), "--budget", str(args.budget)],
                             stdout=subprocess.PIPE, text=True, check=True, cwd=REPO)
        results.append(json.loads(out.stdout.rsplit("RESULT ", 1)[1]))
    text = table(args.n, args.queries, results, load)
    write_results(args.name, {"n": args.n, "queries": args.queries, "dim": DIM,
                              "load_average": load, "results": results}, text)
    print(text)
    shutil.rmtree(work, ignore_errors=True)  # gigabytes at 1M; made again in a minute


if __name__ == "__main__":
    main()
