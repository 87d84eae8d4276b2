"""Vectors the search benchmarks share (bench/search.py, bench/disk.py, bench/search_latency.py):
real `minilm` chunk vectors of a corpus (via a cached flat index), sets grown from them with
noise, held-out noisy queries, and single-thread QPS / recall@10 against exact search."""

from __future__ import annotations

import tarfile
import time
from pathlib import Path

import faiss
import numpy as np

from indexer import Document, SemanticIndex, build_index, read_corpus

K = 10


def newsgroups_docs(data: Path, limit: int | None) -> list[Document]:
    docs = []
    with tarfile.open(data / "20newsgroups" / "20news-bydate.tar.gz") as tar:
        for member in tar:
            if not member.isfile():
                continue
            raw = tar.extractfile(member).read().decode("latin-1")
            head, _, body = raw.partition("\n\n")
            subject = next((h[8:].strip() for h in head.splitlines()
                            if h.lower().startswith("subject:")), "")
            if body.strip():
                group = member.name.split("/")[1]
                docs.append(Document(member.name, body.strip(), subject, {"group": group}))
            if limit and len(docs) >= limit:
                break
    return docs


def corpus_docs(name: str, data: Path, limit: int | None) -> list[Document]:
    if name == "20newsgroups":
        return newsgroups_docs(data, limit)
    path = {"scifact": data / "scifact" / "corpus.jsonl",
            "thucnews": data / "thucnews-titles" / "corpus.jsonl"}[name]
    docs = read_corpus(path).documents
    return docs[:limit] if limit else docs


def real_vectors(name: str, data: Path, limit: int | None, home: Path,
                 partial: bool = False) -> np.ndarray:
    """minilm vectors of every chunk of a corpus, via a (cached, resumable) flat index; with
    `partial`, an unfinished build's finished shards (the first chunks of the corpus)."""
    out = home / (f"{name}-minilm" if name != "scifact" or limit else "scifact-minilm")
    if limit and name != "scifact":
        out = home / f"{name}-minilm-{limit}"
    if not (out / "manifest.json").exists() and partial:
        shards = sorted(out.glob(".build-*/shard-*.npy"))
        if not shards:
            raise FileNotFoundError(f"no finished index or shards for {name} under {out}")
        print(f"  {name}: index not finished; using its {len(shards)} finished shards", flush=True)
        return np.vstack([np.load(s, allow_pickle=False) for s in shards])
    if not (out / "manifest.json").exists():
        docs = corpus_docs(name, data, limit)
        start, last = time.perf_counter(), [0.0]

        def progress(p):
            if p.stage == "encode" and time.perf_counter() - last[0] > 60:
                last[0] = time.perf_counter()
                print(f"  {name}: {p.done}/{p.total} docs, {p.rate:.1f} docs/s, "
                      f"resumed {p.resumed}", flush=True)

        build_index(docs, out, model="minilm", preset="flat", progress=progress)
        print(f"  {name}: encoded in {time.perf_counter() - start:.0f}s", flush=True)
    return flat_vectors(out)


def flat_vectors(folder: Path) -> np.ndarray:
    """The vectors of a flat index (IDMap2,Flat), in chunk order."""
    index = SemanticIndex.open(folder, verify=False)
    flat = faiss.downcast_index(faiss.downcast_index(index.vectors).index)
    return faiss.vector_to_array(flat.codes).view(np.float32).reshape(flat.ntotal, flat.d).copy()


def grow(real: np.ndarray, n: int, rng: np.random.Generator, sigma: float = 0.02) -> np.ndarray:
    if n <= len(real):
        return real[:n]
    picks = rng.integers(0, len(real), n - len(real))
    extra = real[picks] + rng.normal(0, sigma, (len(picks), real.shape[1])).astype(np.float32)
    faiss.normalize_L2(extra)
    return np.vstack([real, extra])


def qps(fn, queries: np.ndarray) -> tuple[float, np.ndarray]:
    """Single-thread queries/second of `fn` over `queries` (one query per call)."""
    fn(queries[:5])
    start = time.perf_counter()
    found = np.vstack([fn(queries[i : i + 1]) for i in range(len(queries))])
    return len(queries) / (time.perf_counter() - start), found


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    """recall@K: the share of each query's exact top K found, averaged."""
    return float(np.mean([len(set(f) & set(t) - {-1}) / K
                          for f, t in zip(found, truth, strict=True)]))


def held_out_queries(real: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(the base set, `n` queries): `n` real vectors held out of the base at random (seed 0),
    each with its own N(0, 0.02) noise, renormalised."""
    rng = np.random.default_rng(0)
    order = rng.permutation(len(real))
    held = real[order[:n]].copy()
    queries = held + rng.normal(0, 0.02, held.shape).astype(np.float32)
    faiss.normalize_L2(queries)
    return real[order[n:]], queries
