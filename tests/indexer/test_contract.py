"""The index contract (`indexer.SemanticIndex`), one suite run against both stores: a folder and
Milvus (milvus-lite, the real engine, in tmp_path). Each test states a promise every store keeps;
what differs between them (when a write becomes visible to a reader opened before it) is said
where it is tested. The cross-store parity of scores lives in milvus/test_milvus_parity.py."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from indexer import (
    ConcurrentWriteError,
    EncoderMismatchError,
    FolderIndex,
    MilvusIndex,
    QueryError,
    SemanticIndex,
    build_index,
    locate,
    rebuild_index,
)

STORES = ["folder", "milvus"]
IMPLEMENTATION = {"folder": FolderIndex, "milvus": MilvusIndex}


def target(store: str, tmp_path, name: str = "idx") -> str:
    if store == "milvus":
        pytest.importorskip("milvus_lite")
        return f"milvus://{tmp_path}/{name}.db?collection={name}"
    return str(tmp_path / name)


@pytest.fixture(params=STORES)
def store(request) -> str:
    return request.param


@pytest.fixture
def built(store, tmp_path, tiny_encoder, docs) -> str:
    where = target(store, tmp_path)
    build_index(docs[:20], where, model=tiny_encoder, preset="flat")
    return where


def test_open_gives_the_stores_implementation_of_the_contract(store, built, tiny_encoder):
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    assert isinstance(index, SemanticIndex) and type(index) is IMPLEMENTATION[store]
    assert index.store == store == locate(built).kind == index.stats().store
    assert str(index.location) == str(locate(built)) and len(index) == 20
    assert locate(built).exists() and locate(built).read_manifest() == index.manifest


def test_documents_read_back_exactly_and_in_a_stable_order(built, tiny_encoder, docs):
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    ids = index.doc_ids()
    assert sorted(ids) == sorted(d["id"] for d in docs[:20]) and ids == index.doc_ids()
    every = list(index.all_documents(batch=7))
    assert [d.id for d in every] == ids
    by_id = {d["id"]: d for d in docs}
    assert all((d.text, d.title, d.metadata) == (by_id[d.id]["text"], by_id[d.id]["title"],
                                                 by_id[d.id]["metadata"]) for d in every)
    stored = index.stored([ids[3], "nope", ids[0]])
    assert [d.id for d in stored.docs] == [ids[3], ids[0]]
    assert [c[0] for c in stored.chunks] == sorted((c[0] for c in stored.chunks),
                                                   key=[ids[3], ids[0]].index)
    assert all(d.text[s:e] for d in stored.docs for i, _, s, e, _ in stored.chunks if i == d.id)
    assert stored.vectors.shape == (len(stored.chunks), index.manifest["dim"])
    np.testing.assert_allclose(np.linalg.norm(stored.vectors, axis=1), 1.0, atol=1e-5)


def test_add_upsert_delete_and_save(built, tiny_encoder):
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    chunks = index.counts()["chunks"]
    added = index.add([{"id": "n1", "text": "penguins waddle on the ice", "title": "Cold",
                        "metadata": {"topic": 9, "colour": "black"}}])
    assert added == 1 and len(index) == 21 and index.counts()["chunks"] == chunks + 1
    assert index.search("penguins waddle on the ice", k=1)[0].doc_id == "n1"
    assert index.search("penguins", k=3, mode="lexical")[0].doc_id == "n1"
    assert [h.doc_id for h in index.search("ice", k=5, filter={"colour": "black"})] == ["n1"]
    assert index.field_values("colour") == ["black"]
    with pytest.raises(ValueError, match="already exist"):
        index.add([{"id": "n1", "text": "again"}])
    index.upsert([{"id": "n1", "text": "otters float on their backs " * 30, "title": "Sea"}])
    doc = index.document("n1")
    assert doc.title == "Sea" and doc.text.startswith("otters") and doc.metadata == {}
    hits = index.search("otters float", k=10, per_chunk=True)
    assert {h.doc_id for h in hits if h.title == "Sea"} == {"n1"}
    assert all(h.text == doc.text[h.start:h.end] for h in hits if h.doc_id == "n1")
    try:  # n1, replaced, has no colour now: no value (Milvus), or no such field (a folder)
        assert index.field_values("colour") == []
    except QueryError:
        assert index.store == "folder"
    index.add([{"id": "n2", "text": "a robin", "metadata": {"colour": "red"}}])
    assert index.field_values("colour") == ["red"]  # not the values kept before
    assert index.delete(["n1", "d000", "unknown"]) == 2
    assert index.missing(["n1", "d000", "d001"]) == ["n1", "d000"]
    assert all(h.doc_id not in ("n1", "d000") for h in index.search("otters stocks", k=20))
    index.save()
    again = SemanticIndex.open(built, encoder=tiny_encoder)
    st = again.stats()
    assert st.documents == 20 and again.manifest["counts"]["documents"] == 20
    assert st.metadata_fields["colour"] == "str"  # a field added later is filterable
    assert again.missing(["n1", "d000", "d001"]) == ["n1", "d000"]


def test_filters_keep_exactly_the_matching_documents(built, tiny_encoder, docs):
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    meta = {d["id"]: d["metadata"] for d in docs[:20]}
    cases = [({"topic": 3}, lambda m: m["topic"] == 3),
             ({"group": {"in": ["b"]}, "flag": True}, lambda m: m["group"] == "b" and m["flag"]),
             ({"score": {"gte": 0.5, "lt": 1.25}}, lambda m: 0.5 <= m["score"] < 1.25),
             ({"topic": {"lte": -1}}, lambda m: False)]
    for filt, keep in cases:
        want = {i for i, m in meta.items() if keep(m)}
        for mode in ("dense", "lexical", "hybrid"):
            got = index.search("stocks fell cats purr", k=50, mode=mode, filter=filt)
            assert {h.doc_id for h in got} <= want, (filt, mode)
            if mode == "dense":
                assert {h.doc_id for h in got} == want, filt


def test_a_document_two_writers_add_is_kept_once(built, tiny_encoder):
    """The second writer's add fails: Milvus at once (its writes are live), a folder when the
    second writer publishes over the first's version."""
    one = SemanticIndex.open(built, encoder=tiny_encoder)
    two = SemanticIndex.open(built, encoder=tiny_encoder)
    one.add([{"id": "same", "text": "first"}])
    one.save()
    with pytest.raises((ValueError, ConcurrentWriteError), match="already exist|same"):
        two.add([{"id": "same", "text": "second"}])
        two.save()
    assert SemanticIndex.open(built, encoder=tiny_encoder).document("same").text == "first"


def test_concurrent_writers_lose_nothing(built, tiny_encoder):
    errors = []

    def writer(w: int) -> None:
        try:
            index = SemanticIndex.open(built, encoder=tiny_encoder)
            for batch in range(2):
                index.add([{"id": f"w{w}-{batch}-{i}", "text": f"writer {w} batch {batch} doc {i}",
                            "metadata": {"writer": w}} for i in range(5)])
            index.delete([f"d{w:03d}"])
            index.save()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    ids = [f"w{w}-{b}-{i}" for w in range(3) for b in range(2) for i in range(5)]
    assert index.missing(ids) == [] and len(index) == 20 - 3 + 30
    assert index.missing([f"d{w:03d}" for w in range(3)]) == [f"d{w:03d}" for w in range(3)]
    assert len(index.search("writer", k=100, filter={"writer": {"in": [0, 1, 2]}})) == 30


def test_readers_during_writes_see_whole_documents(built, tiny_encoder):
    """A reader searching while a writer adds and saves never sees part of a document: a hit's
    text is its document's text at its span. (A folder reader keeps its version until it opens
    the next; a Milvus reader sees writes at once.)"""
    reader = SemanticIndex.open(built, encoder=tiny_encoder)
    done = threading.Event()
    bad: list[str] = []
    # every text each written id ever had: a hit and the document fetched after it are two
    # reads, and a Milvus writer may land between them, so a hit must match one whole version
    versions = {f"r{i}": [f"writer doc {i} version {b} " * (b + 1) for b in range(3)]
                for i in range(4)}

    def read() -> None:
        try:
            while not done.is_set():
                for hit in reader.search("writer doc", k=10, mode="hybrid"):
                    doc = reader.documents([hit.doc_id]).get(hit.doc_id)
                    texts = versions.get(hit.doc_id, []) + ([doc.text] if doc else [])
                    if texts and all(t[hit.start:hit.end] != hit.text for t in texts):
                        bad.append(hit.doc_id)
        except Exception as exc:  # noqa: BLE001 - a reader that failed is a finding too
            bad.append(repr(exc))

    thread = threading.Thread(target=read)
    thread.start()
    try:
        writer = SemanticIndex.open(built, encoder=tiny_encoder)
        for batch in range(3):
            writer.upsert([{"id": f"r{i}", "text": f"writer doc {i} version {batch} " * (batch + 1)}
                           for i in range(4)])
            writer.save()
    finally:
        done.set()
        thread.join(timeout=60)
    assert not bad
    fresh = SemanticIndex.open(built, encoder=tiny_encoder)
    assert fresh.document("r0").text == "writer doc 0 version 2 " * 3


def test_the_wrong_encoder_is_refused(built, other_model_dir):
    from encoder import load_encoder

    with pytest.raises(EncoderMismatchError, match="needs encoder"):
        SemanticIndex.open(built, encoder=load_encoder(other_model_dir))


def test_a_long_document_round_trips(built, tiny_encoder):
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    text = "".join(f"word{i} é字 " for i in range(1500))  # > one Milvus text field
    index.add([{"id": 'long "q"', "text": text}])
    index.save()
    assert SemanticIndex.open(built, encoder=tiny_encoder).document('long "q"').text == text


@pytest.mark.parametrize("into", STORES)
def test_rebuild_into_either_store_keeps_documents_and_chunks(store, into, built, tmp_path,
                                                              tiny_encoder, other_model_dir):
    from encoder import load_encoder

    other = load_encoder(other_model_dir)
    src = SemanticIndex.open(built, encoder=tiny_encoder)
    src.upsert([{"id": 'q"uote', "text": "an id a string key would page wrongly"}])
    src.save()
    new = rebuild_index(built, target(into, tmp_path, "rebuilt"), model=other)
    assert type(new) is IMPLEMENTATION[into]
    assert new.stats().fingerprint == other.fingerprint != src.stats().fingerprint
    ids = src.doc_ids()
    assert sorted(new.doc_ids()) == sorted(ids)
    assert new.documents(ids) == src.documents(ids)
    assert [c[:4] for c in new.stored(ids).chunks] == [c[:4] for c in src.stored(ids).chunks]
    with pytest.raises(Exception, match="source index itself"):
        rebuild_index(built, built, model=other)
