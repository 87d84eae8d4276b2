"""Search p50 with per-document access on against off (issue 50): `index.search(q, k=10)` with
`readers=` (a principal in 3 of 1,000 groups) beside the same search without, per mode, on
folder indexes of 10k and 100k one-chunk documents (HNSW; 70 % of the documents restricted to
1-3 random groups). Vectors are random unit rows given to the build (nothing encoded); queries
are encoded beforehand (a tiny random BERT of minilm's width, 384), so the times are the
search's alone: the ratio is the worst case, which a real model's encode time would dilute.
`--default` adds the default index's case: BBC News's 2,225 articles chunked and encoded by
`minilm` as `make default-index` builds them (preset auto), the same share restricted the same
way, queries of article titles encoded beforehand.

    python -m bench.access [--sizes 10000,100000] [--queries 200] [--preset hnsw] [--default]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.kit.benchkit import write_results

GROUPS = [f"g{i}" for i in range(1000)]
WORDS = [f"w{i}" for i in range(5000)]
MODES = ("dense", "lexical", "hybrid")


def documents(n: int, rng: np.random.Generator) -> list[dict]:
    docs = []
    for i in range(n):
        meta: dict = {"n": i % 10}
        if rng.random() < 0.7:
            meta["access"] = rng.choice(GROUPS, size=rng.integers(1, 4), replace=False).tolist()
        docs.append({"id": f"d{i}", "text": " ".join(rng.choice(WORDS, size=12).tolist()),
                     "metadata": meta})
    return docs


def timed(index, queries: list[str], mode: str, readers) -> tuple[float, float]:
    """p50 ms (off, on): each query without readers then with them, in turns, so both meet
    the same drift of a shared machine's speed."""
    for q in queries[:10]:  # warm: BM25 loaded, columns mapped, the reader set's mask kept
        index.search(q, k=10, mode=mode)
        index.search(q, k=10, mode=mode, readers=readers)
    times: tuple[list[float], list[float]] = ([], [])
    for q in queries:
        for kept, who in zip(times, (None, readers), strict=True):
            start = time.perf_counter()
            index.search(q, k=10, mode=mode, readers=who)
            kept.append(time.perf_counter() - start)
    return tuple(1000 * statistics.median(t) for t in times)


def measure(n: int, preset: str, n_queries: int, encoder, work: Path) -> list[dict]:
    from indexer import build_index

    rng = np.random.default_rng(50)
    docs = documents(n, rng)
    dim = encoder.encode(["x"], prompt="query").shape[1]
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    out = work / f"idx-{n}"
    build_index(docs, out, model=encoder, preset=preset, vectors=vectors)
    queries = [" ".join(rng.choice(WORDS, size=3).tolist()) for _ in range(n_queries)]
    return compare_modes(out, encoder, queries, rng, f"{n:,}")


def measure_default(n_queries: int, work: Path) -> list[dict]:
    """The default index's documents and chunking with `minilm`, 70 % restricted as above."""
    from encoder import load_encoder
    from indexer import build_index
    from indexer.default import bbc_news_documents

    rng = np.random.default_rng(50)
    docs = []
    for d in bbc_news_documents():
        meta = dict(d.metadata)
        if rng.random() < 0.7:
            meta["access"] = rng.choice(GROUPS, size=rng.integers(1, 4), replace=False).tolist()
        docs.append({"id": d.id, "title": d.title, "text": d.text, "metadata": meta})
    encoder = load_encoder("minilm")
    out = work / "idx-default"
    build_index(docs, out, model=encoder)
    titles = [d["title"] for d in docs if d["title"]]
    queries = [titles[int(i)] for i in rng.choice(len(titles), size=n_queries, replace=False)]
    return compare_modes(out, encoder, queries, rng, f"BBC News {len(docs):,}")


def compare_modes(out: Path, encoder, queries: list[str], rng, label: str) -> list[dict]:
    from indexer import SemanticIndex

    index = SemanticIndex.open(out, encoder=encoder, verify=False)
    readers = rng.choice(GROUPS, size=3, replace=False).tolist()
    seen, seen_all = index.counts(readers=readers), index.counts()
    encoded = dict(zip(queries, encoder.encode(queries, prompt="query"), strict=True))
    index._encode_queries = lambda texts: np.stack([encoded[t] for t in texts])  # search alone
    rows = []
    for mode in MODES:
        off, on = timed(index, queries, mode, readers)
        rows.append({"documents": label, "chunks": seen_all["chunks"], "preset": index.spec.preset,
                     "mode": mode, "visible": seen["documents"], "off_p50_ms": round(off, 3),
                     "on_p50_ms": round(on, 3), "ratio": round(on / off, 3)})
        print(rows[-1], flush=True)
    index.close()
    return rows


def table(rows: list[dict], n_queries: int) -> str:
    lines = ["# Search with per-document access on vs off (issue 50)", "",
             f"`index.search(q, k=10)` p50 over {n_queries} queries, folder store, one chunk a "
             "document (the BBC News row: the default index's chunks, `minilm`'s vectors), 70 % "
             "of documents restricted to 1-3 of 1,000 groups, the reader in 3 groups; queries "
             "encoded beforehand (384 wide), so the times are the search's alone. "
             "Command: `python -m bench.access`.", "",
             "| documents | chunks | preset | mode | visible documents | off p50 ms | on p50 ms | "
             "on / off |",
             "|---|---:|---|---|---:|---:|---:|---:|"]
    lines += [f"| {r['documents']} | {r['chunks']:,} | {r['preset']} | {r['mode']} | "
              f"{r['visible']:,} | {r['off_p50_ms']:.2f} | {r['on_p50_ms']:.2f} | "
              f"{r['ratio']:.2f}× |" for r in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10000,100000")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--preset", default="hnsw")
    p.add_argument("--name", default="access")
    p.add_argument("--default", action="store_true", help="also the default index's documents "
                   "(BBC News, chunked and encoded by minilm: a minute or two)")
    args = p.parse_args()
    from bench.kit.tiny_model import build_tiny_model
    from encoder import load_encoder

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-access-") as tmp:
        work = Path(tmp)
        encoder = load_encoder(build_tiny_model(work / "model", hidden=384, heads=6),
                               backend="torch")
        if args.default:
            rows.extend(measure_default(args.queries, work))
        for n in (int(s) for s in args.sizes.split(",") if s):
            rows.extend(measure(n, args.preset, args.queries, encoder, work))
    write_results(args.name, {"rows": rows, "queries": args.queries}, table(rows, args.queries))


if __name__ == "__main__":
    main()
