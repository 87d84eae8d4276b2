"""A filter that keeps a few chunks of a Milvus HNSW index still fills k: milvus-lite's graph walk
drops what the filter refuses and returned 1 to 6 of the 10 chunks that exist at 10,000
(`indexer.milvus.filtered_exact`). The oracle: exact search over the chunks the filter keeps."""

from __future__ import annotations

import numpy as np
import pytest
from unit_vectors import unit_vectors

from indexer import build_index

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

N, PER_AUTHOR, QUERIES = 4000, 12, 12


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, tiny_encoder):
    rng = np.random.default_rng(0)
    dim = tiny_encoder.encode(["x"]).shape[1]
    vectors = unit_vectors(rng, N, dim)
    authors = N // PER_AUTHOR
    docs = [{"id": f"d{i}", "text": f"document {i} about topic {i % 7}",
             "metadata": {"author": f"a{i % authors}", "year": 2000 + i % 20}} for i in range(N)]
    db = tmp_path_factory.mktemp("milvus") / "filtered.db"
    index = build_index(docs, f"milvus://{db}?collection=filtered", model=tiny_encoder,
                        preset="hnsw", vectors=vectors)
    queries = rng.standard_normal((QUERIES, dim)).astype(np.float32)
    index._encode_queries = lambda texts: queries[[int(t) for t in texts]]  # noqa: SLF001
    return index, vectors, queries, authors


def exact(vectors, query, allowed, k=10) -> list[str]:
    return [f"d{allowed[j]}" for j in np.argsort(-(vectors[allowed] @ query))[:k]]


def test_a_filter_that_keeps_0_3_percent_still_fills_k_with_the_nearest(indexed):
    """10 hits whenever 10 pass, and (where the graph walk did fill k) recall@10 of an ANN."""
    index, vectors, queries, authors = indexed
    recalls = []
    for q in range(QUERIES):
        allowed = np.arange(q, N, authors)
        hits = index.search(str(q), k=10, mode="dense", filter={"author": f"a{q}"})
        assert len(hits) == 10, (q, len(hits))
        assert all(h.text and h.metadata["author"] == f"a{q}" for h in hits)
        recalls.append(len({h.doc_id for h in hits} & set(exact(vectors, queries[q], allowed))))
    assert np.mean(recalls) / 10 >= 0.95, recalls


def test_hybrid_under_a_narrow_filter_fills_k_from_what_it_keeps(indexed):
    index, _, _, authors = indexed
    for q in range(3):
        hits = index.search(str(q), k=10, mode="hybrid", filter={"author": f"a{q}"})
        assert len(hits) == 10 and {h.metadata["author"] for h in hits} == {f"a{q}"}


def test_a_filter_that_keeps_fewer_than_k_returns_them_all(indexed):
    index, _, _, _ = indexed
    hits = index.search("0", k=10, mode="dense", filter={"author": "a0", "year": {"lt": 2001}})
    assert 0 < len(hits) < 10 and all(h.metadata["year"] == 2000 for h in hits)


def test_the_exact_fallback_takes_the_kept_vectors_as_one_float32_array(indexed, monkeypatch):
    """The fallback reads every chunk the filter keeps; pymilvus decoded each one's vector into
    a list of Python floats unless asked for float32 arrays (`strict_float32`), which cost more
    than the scoring itself (a category at 100,000 chunks keeps thousands)."""
    index, _, _, _ = indexed
    client = index._searcher().client  # noqa: SLF001
    real, asked = client.query, []

    def query(*args, **kwargs):
        asked.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(client, "query", query)
    for q in range(QUERIES):
        assert len(index.search(str(q), k=10, mode="dense", filter={"author": f"a{q}"})) == 10
    fetched = [kw for kw in asked if "vector" in (kw.get("output_fields") or [])]
    assert fetched, "no query fell back to exact search: the test proves nothing"
    assert all(kw.get("strict_float32") is True for kw in fetched), fetched
