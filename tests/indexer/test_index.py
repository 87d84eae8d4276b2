"""SemanticIndex: save→load identical hits, changes visible after reopen, filters return k,
lexical / hybrid, query validation, encoder checks (damage: test_damage.py)."""

from __future__ import annotations

import json

import pytest

from indexer import (
    EncoderMismatchError,
    QueryError,
    SemanticIndex,
    build_index,
)

QUERIES = ["cats purr", "stocks fell on Monday", "the team won"]


def _ids(hits):
    return [(h.doc_id, h.chunk_id, round(h.score, 5)) for h in hits]


def test_hits_carry_text_offsets_and_metadata(flat_index, tiny_encoder, docs):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    hits = index.search("cats purr on the sofa", k=5)
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))
    assert len({h.doc_id for h in hits}) == 5  # per document by default
    by_id = {d["id"]: d for d in docs}
    for h in hits:
        assert by_id[h.doc_id]["text"][h.start : h.end] == h.text
        assert h.metadata == by_id[h.doc_id]["metadata"] and h.title == by_id[h.doc_id]["title"]
    assert index.document(hits[0].doc_id).text == by_id[hits[0].doc_id]["text"]
    queries = []
    index.conn.set_trace_callback(queries.append)
    found = index.documents([h.doc_id for h in hits] + ["nope", hits[0].doc_id])
    index.conn.set_trace_callback(None)
    assert len(queries) == 1  # one query for every hit's document
    assert set(found) == {h.doc_id for h in hits}
    assert all(found[h.doc_id].text == by_id[h.doc_id]["text"] for h in hits)
    with pytest.raises(KeyError, match="no document 'nope'"):
        index.document("nope")


def test_query_too_long(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert not index.query_too_long("cats purr")
    assert index.query_too_long("cats purr " * 100)  # the tiny model reads 64 tokens


def test_save_load_gives_identical_hits(flat_index, tiny_encoder, tmp_path):
    a = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    a.delete(["d000"])
    a.save()
    b = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert [_ids(h) for h in b.search(QUERIES, k=8)] == [_ids(h) for h in a.search(QUERIES, k=8)]


@pytest.mark.parametrize("which", ["flat_index", "hnsw_index"])
def test_upsert_and_delete_visible_after_reopen(which, request, tiny_encoder):
    path = request.getfixturevalue(which)
    index = SemanticIndex.open(path, encoder=tiny_encoder)
    old = index.search("dogs bark", k=1)[0]
    index.delete([old.doc_id])
    index.upsert([{"id": "d001", "text": "a zebra grazes in the savannah", "title": "Zebra",
                   "metadata": {"topic": 9, "group": "c", "score": 1.5, "flag": True}},
                  {"id": "new", "text": "penguins slide on ice"}])
    index.save()
    again = SemanticIndex.open(path, encoder=tiny_encoder)
    assert len(again) == 60
    all_ids = {h.doc_id for h in again.search("anything at all", k=1000)}
    assert old.doc_id not in all_ids and {"new", "d001"} <= all_ids
    for h in again.search("anything at all", k=1000, per_chunk=True):  # no stale chunk survives
        assert h.text == again.document(h.doc_id).text[h.start : h.end]
    assert again.search("zebra grazes savannah", k=1, mode="lexical")[0].doc_id == "d001"
    assert again.document("d001").title == "Zebra"
    stats = again.stats()
    assert stats.documents == 60 and stats.version == 2
    if which == "hnsw_index":  # HNSW cannot remove: tombstones, then compact
        assert stats.tombstones > 0
        assert again.compact() == stats.tombstones
        again.save()
        assert SemanticIndex.open(path).stats().tombstones == 0
    assert {h.doc_id for h in SemanticIndex.open(path, encoder=tiny_encoder).search(
        "anything at all", k=1000)} == all_ids


def test_field_values_list_each_live_value_once(flat_index, tiny_encoder, docs):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert index.field_values("group") == ["a", "b"]
    assert index.field_values("topic") == [0, 1, 2, 3, 4]
    assert index.field_values("flag") == [False, True]
    assert index.field_values("score") is None  # 60 distinct values: more than the limit
    assert index.field_values("score", limit=60) == sorted(d["metadata"]["score"] for d in docs)
    assert index.field_values("topic", limit=4) is None
    with pytest.raises(QueryError, match="unknown filter field 'colour'. Valid fields: flag"):
        index.field_values("colour")
    queries = []
    index.conn.set_trace_callback(queries.append)
    index.field_values("group").append("z")  # a caller's copy: the cache stays as it was
    assert index.field_values("group") == ["a", "b"] and not queries  # a page rerun reads no SQL
    assert index.field_values("score") is None and not queries  # nor past the limit
    index.conn.set_trace_callback(None)
    index.delete([d["id"] for d in docs if d["metadata"]["group"] == "b"])
    index.upsert([{"id": "x", "text": "odd one", "metadata": {"group": "c", "topic": [1, 2]}}])
    assert index.field_values("group") == ["a", "c"]  # deleted documents' values are gone
    assert index.field_values("topic") == [0, 1, 2, 3, 4]  # a list is no filterable value
    index.save()
    assert index.field_values("group") == ["a", "c"]  # not the values cached before the change


@pytest.mark.parametrize("which", ["flat_index", "hnsw_index"])
@pytest.mark.parametrize("mode", ["dense", "lexical", "hybrid"])
def test_filtered_search_returns_k(which, mode, request, tiny_encoder):
    index = SemanticIndex.open(request.getfixturevalue(which), encoder=tiny_encoder)
    cases = [({"topic": 3}, 12), ({"group": {"in": ["b"]}, "flag": True}, 10),
             ({"score": {"gte": 1.0, "lt": 2.05}}, 11), ({"topic": 3, "score": {"lt": 0.9}}, 2)]
    for filt, matching in cases:
        query = "stocks fell" if mode != "lexical" else "story sentence"
        hits = index.search(query, k=matching, filter=filt, mode=mode)
        assert len(hits) == matching, (filt, mode)
        more = index.search(query, k=matching + 5, filter=filt, mode=mode)
        assert len(more) == matching  # k beyond what matches: all of it
    hits = index.search("stocks", k=5, filter={"topic": 2})
    assert all(h.metadata["topic"] == 2 for h in hits)


def test_lexical_and_hybrid(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    lex = index.search("postman", k=5, mode="lexical")
    assert lex and all("postman" in h.text for h in lex)
    hyb = index.search("postman", k=5, mode="hybrid")
    assert len(hyb) == 5 and lex[0].doc_id in {h.doc_id for h in hyb}
    assert index.search("qqqzzz", k=5, mode="lexical") == []  # no term in common: no hits


@pytest.mark.parametrize("fusion", ["rrf", "minmax", "zscore"])
def test_hybrid_fusions(flat_index, tiny_encoder, fusion):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    hyb = index.search("postman", k=5, mode="hybrid", fusion=fusion)
    assert len(hyb) == 5 and [h.rank for h in hyb] == [1, 2, 3, 4, 5]
    assert [h.score for h in hyb] == sorted((h.score for h in hyb), reverse=True)
    if fusion == "rrf":
        return
    # all weight on one side: that side's ranking (the other side only orders its ties)
    for weights, mode in (((1.0, 0.0), "dense"), ((0.0, 1.0), "lexical")):
        score = {h.doc_id: h.score for h in index.search("postman", k=60, mode=mode)}
        alone = [round(h.score, 5) for h in index.search("postman", k=4, mode=mode)]
        fused = index.search("postman", k=4, mode="hybrid", fusion=fusion, weights=weights)
        assert [round(score[h.doc_id], 5) for h in fused] == alone, (fusion, mode)


def test_batch_queries_are_one_call_and_match_singles(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    batch = index.search(QUERIES, k=4)
    assert [_ids(h) for h in batch] == [_ids(index.search(q, k=4)) for q in QUERIES]
    chunks = index.search(QUERIES[0], k=30, per_chunk=True)
    assert len({h.chunk_id for h in chunks}) == 30 > len({h.doc_id for h in chunks})


def test_k_beyond_corpus_returns_everything(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert len(index.search("cats", k=10_000)) == 60


@pytest.mark.parametrize("kwargs,match", [
    ({"queries": ""}, "query is empty"),
    ({"queries": "   "}, "query is empty"),
    ({"queries": ["ok", " "]}, "query is empty"),
    ({"queries": [1]}, "must be a string"),
    ({"queries": "ok", "k": 0}, "k must be"),
    ({"queries": "ok", "k": -3}, "k must be"),
    ({"queries": "ok", "mode": "fuzzy"}, "Valid: dense, lexical, hybrid"),
    ({"queries": "ok", "filter": {"colour": "red"}}, "unknown filter field 'colour'. Valid"),
    ({"queries": "ok", "filter": {"topic": "three"}}, "holds int values"),
    ({"queries": "ok", "filter": {"group": {"gte": 1}}}, "needs a numeric field"),
    ({"queries": "ok", "filter": {"topic": {"near": 1}}}, "Invalid filter operator"),
    ({"queries": "ok", "nprobe": 4}, "does not apply to preset 'flat'"),
    ({"queries": "ok", "mode": "hybrid", "fusion": "borda"}, "Valid: rrf, minmax, zscore"),
    ({"queries": "ok", "mode": "hybrid", "weights": (float("nan"), 1)}, "dense weight must be"),
    ({"queries": "ok", "mode": "hybrid", "weights": (0, 0)}, "make at least one positive"),
    ({"queries": "ok", "mode": "hybrid", "weights": (1, 1, 1)}, "must be a pair"),
    ({"queries": "ok", "mode": "dense", "weights": (1, 1)}, "weights apply to mode='hybrid'"),
    ({"queries": "ok", "mode": "lexical", "weights": (1, 0)}, "mode='lexical' ranks by one"),
    ({"queries": "ok", "filter": {"topic": 2**64}}, "filter on 'topic': 18446744073709551616 "
                                                   "is an integer beyond 64 bits"),
    ({"queries": "ok", "filter": {"topic": {"in": [1, -2**70]}}}, "beyond 64 bits"),
    ({"queries": "ok", "filter": {"group": "\ud800"}}, "'group'.*lone surrogate"),
])
def test_bad_queries_are_refused_clearly(flat_index, tiny_encoder, kwargs, match):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    queries = kwargs.pop("queries")
    with pytest.raises(QueryError, match=match):
        index.search(queries, **kwargs)


def test_search_weights_get_fuses_own_check(flat_index, tiny_encoder):
    """A bad hybrid weight is refused by `fusion.check_weights`, the check `fuse` makes: the
    same sentence, with the search's lists named."""
    from indexer.fusion import fuse

    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    for bad, label in (((-1, 1), "the dense weight"), ((1, -1), "the lexical weight")):
        with pytest.raises(QueryError) as searched:
            index.search("ok", mode="hybrid", weights=bad)
        assert str(searched.value) == f"weights: {label} must be a finite number >= 0, got -1"
    with pytest.raises(ValueError) as fused:
        fuse([[], []], "zscore", (-1, 1))
    assert str(fused.value) == "weights: weight 1 of 2 must be a finite number >= 0, got -1"
    with pytest.raises(QueryError, match=r"^weights \(0, 0\) give every hit score 0"):
        index.search("ok", mode="hybrid", weights=(0, 0.0), fusion="rrf")


@pytest.mark.slow
def test_encoder_mismatch_is_refused(flat_index, minilm):
    with pytest.raises(EncoderMismatchError, match="this index needs encoder 'tiny-bert'"):
        SemanticIndex.open(flat_index, encoder=minilm)


def test_lazy_encoder_is_loaded_by_name(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index)
    assert index.search("cats", k=2)[0].doc_id == \
        SemanticIndex.open(flat_index, encoder=tiny_encoder).search("cats", k=2)[0].doc_id


def test_stats_for_a_ui(flat_index):
    st = SemanticIndex.open(flat_index).stats()
    assert (st.documents, st.preset, st.model, st.dim) == (60, "flat", "tiny-bert", 32)
    assert st.chunks >= 60 and st.size_bytes > 0 and st.built_at and st.skipped == []
    assert st.metadata_fields == {"flag": "bool", "group": "str", "score": "float", "topic": "int"}
    as_dict = st.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict  # plain JSON, nothing lost


def test_chinese_lexical_search(tmp_path, tiny_encoder):
    texts = ["苹果发布会在北京举行。", "今天的苹果很好吃！", "天气预报说明天下雨。"]
    docs = [{"id": str(i), "text": t} for i, t in enumerate(texts, start=1)]
    index = build_index(docs, tmp_path / "zh", model=tiny_encoder)
    assert [h.doc_id for h in index.search("发布会", k=3, mode="lexical")] == ["1"]
    assert {h.doc_id for h in index.search("苹果", k=3, mode="lexical")} == {"1", "2"}


@pytest.mark.parametrize("preset", ["ivf", "ivfpq", "sq8"])
def test_other_presets_filter_and_delete(preset, tmp_path, tiny_encoder, docs):
    index = build_index(docs, tmp_path / preset, model=tiny_encoder, preset=preset)
    exact = build_index(docs, tmp_path / "exact", model=tiny_encoder, preset="flat")
    hits = index.search("stocks fell", k=12, filter={"topic": 3})
    assert len(hits) == 12 and all(h.metadata["topic"] == 3 for h in hits)
    knobs = {} if preset == "sq8" else {"nprobe": 64}  # ivf*: visit every list
    top = {h.doc_id for h in index.search("stocks fell", k=10, **knobs)}
    assert len(top & {h.doc_id for h in exact.search("stocks fell", k=10)}) >= 9
    index.delete(["d003", "d008"])
    index.save()
    again = SemanticIndex.open(tmp_path / preset, encoder=tiny_encoder)
    found = {h.doc_id for h in again.search("stocks fell", k=100, filter={"topic": 3})}
    assert len(found) == 10 and not found & {"d003", "d008"}
    tombstones = again.stats().tombstones  # ivf and ivfpq keep tombstones; sq8 removes
    assert (tombstones > 0) == (preset in ("ivf", "ivfpq"))
    assert again.compact() == tombstones
    again.save()
    compacted = SemanticIndex.open(tmp_path / preset, encoder=tiny_encoder)
    assert compacted.stats().tombstones == 0
    assert {h.doc_id for h in compacted.search("stocks fell", k=100, filter={"topic": 3})} == found


def test_published_versions_search_without_counting_rows(flat_index, tiny_encoder):
    """A published version's row counts come from its manifest (a count(*) over 1M SQLite rows
    costs ~17 ms a query); a working copy's are counted. Both agree with SQLite throughout."""
    from indexer.folder import db

    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    counted: list[str] = []
    index.conn.set_trace_callback(lambda q: counted.append(q) if "count(" in q else None)
    index.search(QUERIES, k=5)
    index.search("cats purr", k=5, mode="hybrid")
    sizes = len(index), index.stats().chunks
    index.conn.set_trace_callback(None)
    assert counted == []
    assert sizes == (60, db.counts(index.conn)["chunks"])
    assert index.counts() == db.counts(index.conn)
    index.delete(["d000"])
    index.upsert([{"id": "new", "text": "penguins slide on ice"}])
    assert index.counts() == db.counts(index.conn) and len(index) == 60  # the working copy's
    index.save()
    assert index.counts() == db.counts(index.conn)  # the new manifest carries the new counts
    assert SemanticIndex.open(flat_index, encoder=tiny_encoder).counts() == index.counts()


def test_an_ivf_index_finds_each_chunk_by_its_own_vector_after_deletes(tmp_path, tiny_encoder,
                                                                       docs):
    """FAISS's IDMap2 over an IVF shifted its id map on removal while the IVF kept its labels:
    after deleting two documents, searches named other documents (and -1) for the rest."""
    index = build_index(docs, tmp_path / "ivf", model=tiny_encoder, preset="ivf")
    index.delete(["d003", "d008"])
    index.save()
    again = SemanticIndex.open(tmp_path / "ivf", encoder=tiny_encoder)
    for doc in ("d010", "d030", "d059"):
        text = next(d["text"] for d in docs if d["id"] == doc)
        assert again.search(text, k=1, mode="dense", nprobe=64)[0].doc_id == doc
