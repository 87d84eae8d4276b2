"""`python -m bench.scale.hnsw_sweep --size 100000`: the `hnsw` preset's two settings on the
scale corpus (bench/scale/README.md): for efConstruction 80 and 200 (M=32, inner product), the
build time on 2 threads, then per efSearch the recall@10 of the corpus's 300 queries against
exact search and one query's search time on 1 thread (k=40, what a search of 10 documents asked
before the fetch followed the chunks per document). Chose the preset's efConstruction and
efSearch (indexer/presets.py). `--index FILE` sweeps efSearch on an index built already (the
`vectors.faiss` of a folder index the scale bench built: `--k 16`, what a search of 10 documents
asks of a one-chunk-per-document index) instead of building two."""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.kit.benchkit import data_dir, write_results
from common.home import bertscope_home

from .corpus import scale_corpus
from .steps import redact

EF_SEARCH = (128, 256, 512, 1024)


def main() -> None:
    import faiss

    from encoder import load_encoder

    p = argparse.ArgumentParser(prog="python -m bench.scale.hnsw_sweep")
    p.add_argument("--size", type=int, default=100_000)
    p.add_argument("--builds", default="80,200", help="efConstruction values")
    p.add_argument("--index", help="a built HNSW index file to sweep instead of building")
    p.add_argument("--k", type=int, default=40, help="hits asked of FAISS per query")
    args = p.parse_args()
    enc = load_encoder("minilm")
    data = scale_corpus(args.size, bertscope_home("bench", "scale"), data_dir(), enc)
    vectors = np.load(data.vectors)
    queries = enc.encode([q["text"] for q in data.queries()], prompt="query")
    truth = [set(np.argpartition(-(q @ vectors.T), 10)[:10].tolist()) for q in queries]
    rows = []
    for efc, index, built in _indexes(args, vectors):
        faiss.omp_set_num_threads(1)
        # a mapped index reads its pages on first touch: one pass before the clock
        index.search(queries, args.k, params=faiss.SearchParametersHNSW(efSearch=EF_SEARCH[-1]))
        for ef in EF_SEARCH:
            params = faiss.SearchParametersHNSW(efSearch=ef)
            started = time.perf_counter()
            for q in queries:
                index.search(q[None], args.k, params=params)
            ms = (time.perf_counter() - started) / len(queries) * 1000
            found = index.search(queries, args.k, params=params)[1]
            recall = float(np.mean([len(set(found[i, :10].tolist()) & truth[i]) / 10
                                    for i in range(len(queries))]))
            rows.append({"efConstruction": efc, "build_s": round(built, 1), "efSearch": ef,
                         "recall@10": round(recall, 4), "ms_per_query": round(ms, 3)})
            print(rows[-1], flush=True)
    table = [f"# HNSW settings on the scale corpus ({args.size:,} passages, minilm vectors)", "",
             "M=32, inner product; build on 2 threads, search on 1; recall@10 of 300 queries "
             "against exact search", "",
             "| efConstruction | build s | efSearch | recall@10 | ms / query |",
             "|---:|---:|---:|---:|---:|"]
    table += [f"| {r['efConstruction']} | {r['build_s']} | {r['efSearch']} | {r['recall@10']} | "
              f"{r['ms_per_query']} |" for r in rows]
    if args.index:
        table[2] = ("M=32 (the index named in the Run line, built by the product; build s: 0, "
                    f"not measured here); search on 1 thread, k={args.k}; recall@10 of 300 "
                    "queries against exact search")
    write_results(f"scale-hnsw-{args.size}" + ("-built" if args.index else ""),
                  {"size": args.size, "k": args.k, "index": args.index and redact(args.index),
                   "rows": rows},
                  "\n".join(table) + "\n")


def _indexes(args, vectors: np.ndarray):
    """(efConstruction, index, build seconds): the file given, or one build per value."""
    import faiss

    if args.index:
        from indexer.presets import find_inner

        index = faiss.read_index(args.index, faiss.IO_FLAG_MMAP_IFC)
        yield find_inner(index, faiss.IndexHNSW).hnsw.efConstruction, index, 0.0
        return
    for efc in map(int, args.builds.split(",")):
        index = faiss.index_factory(vectors.shape[1], "HNSW32,Flat", faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = efc
        faiss.omp_set_num_threads(2)
        started = time.perf_counter()
        index.add(vectors)
        yield efc, index, time.perf_counter() - started


if __name__ == "__main__":
    main()
