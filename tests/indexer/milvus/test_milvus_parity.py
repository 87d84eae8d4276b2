"""The Milvus store (milvus-lite, the real engine, in tmp_path) beside the folder store on the same
vectors: identical exact top-10, the same BM25 scores, the same documents kept by filters, and an
HNSW index's recall@10 against exact search."""

from __future__ import annotations

import random

import pytest

from indexer import MilvusIndex, SemanticIndex, build_index

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

QUERIES = ["stocks fell on Monday", "cats purr", "the team won", "rain tomorrow in story 7"]
FILTERS = [({"topic": 3}, 12), ({"group": {"in": ["b"]}, "flag": True}, 10),
           ({"score": {"gte": 1.0, "lt": 2.05}}, 11), ({"topic": 3, "score": {"lt": 0.9}}, 2),
           ({"flag": False}, 40), ({"topic": {"in": [0, 4]}, "score": {"gt": 3}}, 11),
           ({"topic": {"lte": -1}}, 0)]


@pytest.fixture(scope="module")
def folder(_built_flat, tiny_encoder):
    return SemanticIndex.open(_built_flat, encoder=tiny_encoder)


@pytest.fixture(scope="module")
def milvus(tmp_path_factory, tiny_encoder, docs):
    db = tmp_path_factory.mktemp("milvus") / "parity.db"
    return build_index(docs, f"milvus://{db}?collection=parity", model=tiny_encoder,
                       preset="flat")


def ranked(hits):
    return [(h.doc_id, round(h.score, 5), h.start, h.end, h.text, h.title, h.metadata)
            for h in hits]


def test_the_same_public_surface_as_a_folder_index():
    """Every public name of SemanticIndex but the folder's own parts, with the same signature."""

    folder_only = {"conn", "lexical", "vectors"}
    names = {n for n in dir(SemanticIndex) if not n.startswith("_")} - folder_only
    assert names <= set(dir(MilvusIndex))
    for name in names:
        ours, theirs = getattr(MilvusIndex, name), getattr(SemanticIndex, name)
        if callable(theirs):
            assert _params(ours) == _params(theirs), name


def _params(function) -> list[tuple]:
    import inspect

    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def test_explain_runs_on_a_milvus_hit(milvus):
    hit = milvus.search("stocks fell", k=1)[0]
    assert milvus.explain_work("stocks fell", hit, steps=2) > 0
    assert milvus.explain("stocks fell", hit, method="occlusion").backend_score == \
        pytest.approx(hit.score, abs=1e-3)


def test_a_milvus_address_opens_a_milvus_index(milvus, tiny_encoder):
    again = SemanticIndex.open(str(milvus.address), encoder=tiny_encoder)
    assert isinstance(milvus, MilvusIndex) and isinstance(again, MilvusIndex)
    assert milvus.stats().faiss_spec == "milvus FLAT" and len(again) == 60


@pytest.mark.parametrize("per_chunk", [False, True])
def test_exact_dense_top10_is_the_folder_stores(folder, milvus, per_chunk):
    for query in QUERIES:
        want = folder.search(query, k=10, per_chunk=per_chunk)
        got = milvus.search(query, k=10, per_chunk=per_chunk)
        assert ranked(got) == ranked(want), query
        if not per_chunk:
            assert len({h.doc_id for h in got}) == 10  # one hit per document


def by_score(hits):
    return sorted((-round(h.score, 4), h.doc_id) for h in hits)


@pytest.mark.parametrize("per_chunk", [False, True])
def test_bm25_scores_are_the_folder_stores(folder, milvus, per_chunk):
    """Every document scored (k=100 > 60), so ties cannot cut the lists differently."""
    for query in [*QUERIES, "story sentence"]:
        want = folder.search(query, k=200, mode="lexical", per_chunk=per_chunk)
        got = milvus.search(query, k=200, mode="lexical", per_chunk=per_chunk)
        assert by_score(got) == by_score(want) and want, query


@pytest.mark.parametrize("fusion", ["minmax", "zscore"])
def test_hybrid_is_the_folder_stores(folder, milvus, fusion):
    for query in QUERIES:
        want = folder.search(query, k=10, mode="hybrid", fusion=fusion)
        got = milvus.search(query, k=10, mode="hybrid", fusion=fusion)
        assert by_score(got) == by_score(want), query


@pytest.mark.parametrize("mode", ["dense", "lexical", "hybrid"])
def test_filters_keep_the_folder_stores_documents(folder, milvus, mode):
    query = "story sentence" if mode == "lexical" else "stocks fell"
    for filt, matching in FILTERS:
        got = milvus.search(query, k=100, mode=mode, filter=filt)
        want = folder.search(query, k=100, mode=mode, filter=filt)
        assert {h.doc_id for h in got} == {h.doc_id for h in want}, filt
        assert len(got) == matching, filt
        if mode == "dense":
            assert ranked(got[:10]) == ranked(want[:10])


def test_filters_on_hnsw_keep_the_folder_stores_documents(folder, tmp_path, tiny_encoder,
                                                          docs):
    hnsw = build_index(docs, f"milvus://{tmp_path}/h.db?collection=h", model=tiny_encoder,
                       preset="hnsw")
    for filt, matching in FILTERS:
        got = hnsw.search("stocks fell", k=100, filter=filt)
        want = folder.search("stocks fell", k=100, filter=filt)
        assert {h.doc_id for h in got} == {h.doc_id for h in want} and len(got) == matching
        assert ranked(got[:10]) == ranked(want[:10]), filt


def test_documents_and_stats_are_the_folder_stores(folder, milvus, docs):
    ids = [d["id"] for d in docs[:7]]
    assert milvus.documents([*ids, "nope"]) == folder.documents(ids)
    assert milvus.document("d003") == folder.document("d003")
    assert milvus.missing(["d001", "nope", "d059", "x"]) == ["nope", "x"]
    a, b = milvus.stats(), folder.stats()
    for field in ("documents", "chunks", "model", "fingerprint", "dim", "metadata_fields",
                  "chunking", "backend", "bm25", "source"):
        assert getattr(a, field) == getattr(b, field), field


def test_field_values_are_the_folder_stores(folder, milvus):
    for name in ("topic", "group", "flag", "score"):
        assert milvus.field_values(name) == folder.field_values(name), name
    assert milvus.field_values("topic", limit=4) is None
    assert milvus.field_values("group") == ["a", "b"]


def test_hnsw_recall_at_10_against_exact(tmp_path, tiny_encoder):
    rng = random.Random(7)
    words = [f"w{i}" for i in range(400)] + ["cat", "dog", "stock", "rain", "team", "final"]
    docs = [{"id": f"r{i}", "text": " ".join(rng.choices(words, k=rng.randint(3, 12)))}
            for i in range(2000)]
    exact = build_index(docs, tmp_path / "flat", model=tiny_encoder, preset="flat")
    hnsw = build_index(docs, f"milvus://{tmp_path}/r.db?collection=r", model=tiny_encoder,
                       preset="hnsw")
    assert hnsw.stats().faiss_spec.startswith("milvus HNSW")
    queries = [" ".join(rng.choices(words, k=4)) for _ in range(60)]
    want = exact.search(queries, k=10)
    got = hnsw.search(queries, k=10, efSearch=64)
    found = sum(len({h.doc_id for h in g} & {h.doc_id for h in w})
                for g, w in zip(got, want, strict=True))
    assert found / (10 * len(queries)) >= 0.95
