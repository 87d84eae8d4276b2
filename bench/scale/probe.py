"""`python -m bench.scale.probe INDEX CORPUS_DIR OUT.json [--skip writes]`: one fresh process
measures one built index: open (seconds, RSS after), search p50/p95 per mode and filter over the
corpus's queries (one client, k=10), dense recall@10 against exact search over the same vectors
(unfiltered and under the 0.1 % filter), then `add` of 1,000 passages with their vectors, `delete`
of them, and `compact`, each saved."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

from .corpus import ScaleCorpus
from .rss import rss_mb, tree_rss

K = 10
WARMUP = 20


def filters(q: dict) -> dict[str, dict]:
    lo, hi = q["years"]
    return {"category": {"category": q["category"]},
            "years": {"year": {"gte": lo, "lte": hi}},
            "author (0.1 %)": {"author": q["author"]}}


def timed(fn, items) -> list[float]:
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t) * 1000)
    return out


def summary(ms: list[float]) -> dict:
    ms = sorted(ms)
    return {"p50_ms": round(statistics.median(ms), 3),
            "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 3), "n": len(ms)}


def exact_top(vectors: np.ndarray, queries: np.ndarray, rows: np.ndarray | None = None,
              k: int = K, batch: int = 100_000) -> list[list[int]]:
    """Exact top-k rows by inner product (over `rows` only when given), in pieces."""
    best_s = np.full((len(queries), 0), -np.inf, np.float32)
    best_i = np.empty((len(queries), 0), np.int64)
    pool = np.arange(len(vectors)) if rows is None else rows
    for first in range(0, len(pool), batch):
        ids = pool[first:first + batch]
        block = np.asarray(vectors[ids[0]:ids[-1] + 1] if rows is None else vectors[ids])
        s = queries @ block.T
        best_s = np.hstack([best_s, s])
        best_i = np.hstack([best_i, np.broadcast_to(ids, s.shape)])
        top = np.argsort(-best_s, axis=1)[:, :k]
        best_s = np.take_along_axis(best_s, top, 1)
        best_i = np.take_along_axis(best_i, top, 1)
    return best_i.tolist()


def recall(found: list[list[str]], truth: list[list[int]]) -> float:
    hits = [len({f"p{t:07d}" for t in want} & set(got)) / max(1, len(want))
            for got, want in zip(found, truth, strict=True) if want]
    return round(float(np.mean(hits)), 4) if hits else float("nan")


def author_rows(corpus: Path) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    with open(corpus, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            rows.setdefault(json.loads(line)["author"], []).append(i)
    return rows


def measure(target: str, data: ScaleCorpus, skip: set[str], limit: int) -> dict:
    from indexer import SemanticIndex

    out: dict = {"rss_before_open_mb": round(rss_mb(), 1)}
    t = time.perf_counter()
    index = SemanticIndex.open(target)
    out["open_s"] = round(time.perf_counter() - t, 3)
    import psutil

    out["rss_after_open_mb"] = round(tree_rss(psutil.Process()) / 2**20, 1)
    queries = data.queries()[:limit]
    texts = [q["text"] for q in queries]
    enc = index.encoder
    qv = enc.encode(texts, prompt="query")
    out["encode_one_query"] = summary(timed(lambda s: enc.encode([s], prompt="query"), texts))
    for q in texts[:WARMUP]:
        index.search(q, k=K, mode="hybrid")
    search = {}
    for mode in ("dense", "lexical", "hybrid"):
        search[mode] = summary(timed(lambda s, m=mode: index.search(s, k=K, mode=m), texts))
    for name in filters(queries[0]):
        search[f"hybrid + {name}"] = summary(timed(
            lambda q, n=name: index.search(q["text"], k=K, mode="hybrid", filter=filters(q)[n]),
            queries))
    cached = dict(zip(texts, qv, strict=True))
    # the query vectors made before: the searcher (made again) takes them instead of encoding
    index._encode_queries = lambda items: np.vstack([cached[s] for s in items])  # noqa: SLF001
    index._search = None  # noqa: SLF001
    search["dense, query encoded before"] = summary(
        timed(lambda s: index.search(s, k=K, mode="dense"), texts))
    search["dense + author (0.1 %), query encoded before"] = summary(timed(
        lambda q: index.search(q["text"], k=K, mode="dense", filter=filters(q)["author (0.1 %)"]),
        queries))
    out["search"] = search
    out["rss_after_search_mb"] = round(tree_rss(psutil.Process()) / 2**20, 1)

    del index._encode_queries  # the class's own again  # noqa: SLF001
    index._search = None  # noqa: SLF001
    vectors = np.load(data.vectors, mmap_mode="r")
    found = [[h.doc_id for h in index.search(s, k=K, mode="dense")] for s in texts]
    out["recall@10"] = recall(found, exact_top(vectors, qv))
    by_author = author_rows(data.corpus)
    truth = [exact_top(vectors, qv[i:i + 1], np.asarray(by_author[q["author"]]))[0]
             for i, q in enumerate(queries)]
    found = [[h.doc_id for h in index.search(q["text"], k=K, mode="dense",
                                             filter={"author": q["author"]})] for q in queries]
    out["recall@10 author (0.1 %)"] = recall(found, truth)
    if "writes" not in skip:
        out["writes"] = writes(index, data, compact="compact" not in skip)
    return out


def writes(index, data: ScaleCorpus, compact: bool = True) -> dict:
    with open(data.add_corpus, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    docs = [{"id": r.pop("id"), "title": r.pop("title"), "text": r.pop("text"), "metadata": r}
            for r in rows]
    vectors = np.load(data.add_vectors)
    before = len(index)
    out = {}
    t = time.perf_counter()
    index.add(docs, vectors=vectors)
    index.save()
    out["add_1000_s"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    index.delete([d["id"] for d in docs])
    index.save()
    out["delete_1000_s"] = round(time.perf_counter() - t, 3)
    if compact:  # at 1M an HNSW compact re-adds every vector: the build's graph time again
        t = time.perf_counter()
        index.compact()
        index.save()
        out["compact_s"] = round(time.perf_counter() - t, 3)
    out["documents_after"] = len(index)
    assert len(index) == before, (len(index), before)
    return out


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.scale.probe")
    p.add_argument("index")
    p.add_argument("corpus_dir")
    p.add_argument("out")
    p.add_argument("--skip", default="", help="comma-separated: writes, compact")
    p.add_argument("--queries", type=int, default=300, help="the first N of the 300 queries")
    args = p.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = measure(args.index, ScaleCorpus(Path(args.corpus_dir)), set(args.skip.split(",")),
                     args.queries)
    Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
