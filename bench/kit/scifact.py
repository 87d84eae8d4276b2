"""SciFact indexes and runs the retrieval benchmarks share (retrieval, fusion, scifact_cv,
scifact_chunked, scifact_two_chunkings, milvus_scifact): the cached index of a model, BM25
over whole documents, a run of an index."""

from __future__ import annotations

import time
from pathlib import Path

from indexer import Document, SemanticIndex, build_index


def get_index(model: str, corpus: dict, home: Path, backend: str | None = None, *,
              name: str | None = None, bm25=None) -> tuple[SemanticIndex, float]:
    """The SciFact index of `model` (on `backend`, else the library's default; BM25 `bm25`,
    else the default) at `home / name`, built when absent; build seconds are this run's, or the
    cached build's encode stage (its manifest)."""
    out = home / (name or (f"scifact-{model}-{backend}" if backend else f"scifact-{model}"))
    if (out / "manifest.json").exists():
        index = SemanticIndex.open(out)
        return index, float(index.manifest.get("build", {}).get("stages", {}).get("encode_s", 0))
    if backend:
        from encoder import load_encoder

        try:
            model = load_encoder(model, backend=backend)
        except TypeError:  # a library from before backends: it runs torch only
            if backend != "torch":
                raise
            model = load_encoder(model)
    docs = [Document(i, d["text"] or d["title"], d["title"]) for i, d in corpus.items()]
    start = time.perf_counter()
    last = [0.0]

    def progress(p):
        if p.stage == "encode" and time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            print(f"  {model}: {p.done}/{p.total} docs, {p.rate:.1f} docs/s", flush=True)

    index = build_index(docs, out, model=model, preset="flat", progress=progress, bm25=bm25)
    return index, time.perf_counter() - start


def bm25_documents(corpus: dict, qids: list[str], texts: list[str]):
    """BM25 over whole documents (title + text), no model: the classic BEIR baseline.
    (run, search seconds)."""
    from common.lexical import Bm25Params

    return bm25_grid(corpus, qids, texts, [Bm25Params()])[Bm25Params()]


def bm25_grid(corpus: dict, qids: list[str], texts: list[str], params: list) -> dict:
    """{Bm25Params: (BM25 top-100 run over whole documents, search seconds)}; tokenised once."""
    from common.lexical import LexicalIndex, tokenize

    ids = list(corpus)
    tokens = [tokenize(f"{corpus[i]['title']} {corpus[i]['text']}") for i in ids]
    out = {}
    for p in params:
        lexical = LexicalIndex.build(range(len(ids)), tokens, p)
        start = time.perf_counter()
        hits = lexical.search(texts, 100)
        seconds = time.perf_counter() - start
        out[p] = ({q: {ids[c]: s for c, s in h} for q, h in zip(qids, hits, strict=True)},
                  seconds)
    return out


def run_of(index: SemanticIndex, qids: list[str], texts: list[str], mode: str):
    start = time.perf_counter()
    results = index.search(texts, k=100, mode=mode)
    seconds = time.perf_counter() - start
    return {q: {h.doc_id: h.score for h in hits} for q, hits in zip(qids, results, strict=True)}, \
        seconds
