"""Changing a Milvus index (milvus-lite in tmp_path): add, replace, delete and save as on a folder
index, writers on several threads losing nothing, the encoder checked on open, and the CLI taking
a milvus:// address where it takes a folder."""

from __future__ import annotations

import threading

import pytest

from indexer import (
    EncoderMismatchError,
    MilvusIndex,
    SemanticIndex,
    build_index,
)

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


@pytest.fixture
def address(tmp_path, tiny_encoder, docs) -> str:
    target = f"milvus://{tmp_path}/w.db?collection=w"
    build_index(docs[:20], target, model=tiny_encoder, preset="flat")
    return target


def test_add_replace_delete_and_save(address, tiny_encoder):
    index = SemanticIndex.open(address, encoder=tiny_encoder)
    before = index.counts()
    added = index.add([{"id": "n1", "text": "penguins waddle on the ice", "title": "Cold",
                        "metadata": {"topic": 9, "colour": "black"}}])
    assert added == 1 and len(index) == 21 and index.counts()["chunks"] == before["chunks"] + 1
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
    assert index.search("penguins", k=3, mode="lexical") == [] or \
        index.search("penguins", k=3, mode="lexical")[0].doc_id != "n1"
    assert index.field_values("colour") == []  # n1, replaced, has no colour now
    index.add([{"id": "n2", "text": "a robin", "metadata": {"colour": "red"}}])
    assert index.field_values("colour") == ["red"]  # not the values kept before
    assert index.delete(["n1", "d000", "unknown", "n2"]) == 3
    assert index.missing(["n1", "d000", "d001"]) == ["n1", "d000"]
    assert all(h.doc_id not in ("n1", "d000") for h in index.search("otters stocks", k=20))
    index.save()
    again = SemanticIndex.open(address, encoder=tiny_encoder)
    st = again.stats()
    assert (st.documents, st.version) == (19, 1)
    assert again.manifest["counts"]["documents"] == 19
    assert st.metadata_fields["colour"] == "str"  # a field added later is filterable


def test_a_rebuild_replaces_the_index_under_an_open_reader(address, tiny_encoder, docs):
    reader = SemanticIndex.open(address, encoder=tiny_encoder)
    assert len(reader) == 20
    build_index(docs[20:25], address, model=tiny_encoder, preset="flat")
    assert len(reader) == 5 and reader.missing(["d000", "d020"]) == ["d000"]
    assert {h.doc_id for h in reader.search("stocks", k=10)} == {d["id"] for d in docs[20:25]}
    assert SemanticIndex.open(address, encoder=tiny_encoder).stats().documents == 5


def test_a_long_document_round_trips(address, tiny_encoder):
    index = SemanticIndex.open(address, encoder=tiny_encoder)
    text = "".join(f"word{i} é字 " for i in range(1500))  # > one VARCHAR part
    index.add([{"id": "long", "text": text}])
    assert index.document("long").text == text


def test_concurrent_writers_lose_nothing(address, tiny_encoder):
    errors = []

    def writer(w: int) -> None:
        try:
            index = SemanticIndex.open(address, encoder=tiny_encoder)
            for batch in range(3):
                index.add([{"id": f"w{w}-{batch}-{i}", "text": f"writer {w} batch {batch} doc {i}",
                            "metadata": {"writer": w}} for i in range(5)])
            index.delete([f"d{w:03d}"])
            index.save()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    index = SemanticIndex.open(address, encoder=tiny_encoder)
    ids = [f"w{w}-{b}-{i}" for w in range(4) for b in range(3) for i in range(5)]
    assert index.missing(ids) == [] and len(index) == 20 - 4 + 60
    assert index.missing([f"d{w:03d}" for w in range(4)]) == [f"d{w:03d}" for w in range(4)]
    hits = index.search("writer", k=100, filter={"writer": {"in": [0, 1, 2, 3]}})
    assert len(hits) == 60


def test_a_document_added_twice_is_refused(address, tiny_encoder):
    one = SemanticIndex.open(address, encoder=tiny_encoder)
    two = SemanticIndex.open(address, encoder=tiny_encoder)
    one.add([{"id": "same", "text": "first"}])
    with pytest.raises(ValueError, match="already exist"):
        two.add([{"id": "same", "text": "second"}])
    assert two.document("same").text == "first"


def test_the_wrong_encoder_is_refused(address, other_model_dir):
    from encoder import load_encoder

    other = load_encoder(other_model_dir)
    with pytest.raises(EncoderMismatchError, match="needs encoder"):
        MilvusIndex.open(address, encoder=other)


def test_cli_build_search_info_add_delete(tmp_path, tiny_model_dir, docs, run_cli):
    import json

    corpus = tmp_path / "c.jsonl"
    rows = [{"id": d["id"], "title": d["title"], "text": d["text"], **d["metadata"]}
            for d in docs[:12]]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    db = tmp_path / "cli.db"
    built = run_cli("indexer", "build", "--corpus", corpus, "--store", "milvus", "--milvus-uri",
                    db, "--collection", "cli", "--model", tiny_model_dir, "--backend", "torch")
    assert built.code == 0, built
    address = f"milvus://{db}?collection=cli"
    assert f"built {address}: 12 documents" in built.out
    found = run_cli("indexer", "search", address, "stocks fell", "--k", "3", "--filter",
                    '{"topic": 2}')
    assert found.code == 0, found
    assert sorted(line.split()[2] for line in found.out.splitlines()) == ["d002", "d007"]
    info = json.loads(run_cli("indexer", "info", address).out)
    assert info["documents"] == 12 and info["path"] == address
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": "x1", "text": "new one"}) + "\n", encoding="utf-8")
    assert run_cli("indexer", "add", address, "--corpus", more).out.startswith(
        "added 1 new documents")
    gone = run_cli("indexer", "delete", address, "x1", "d000", "zz")
    assert gone.code == 3 and "deleted 2 documents; now 11" in gone.out
    bad = run_cli("indexer", "build", "--corpus", corpus, "--store", "milvus", "--collection",
                  "x")
    assert bad.code == 2 and "--milvus-uri" in bad.err
    missing = run_cli("indexer", "info", f"milvus://{db}?collection=nothing")
    assert missing.code == 1 and "no collection 'nothing'" in missing.error
