"""An `access` stored as a bare string ("hr", not ["hr"]: written before access values were
checked, or by another writer) is a list of one name on both stores, in every read: search in
every mode, documents, missing, field values, counts, chunk spans. Milvus's rows are rewritten
through its client (no check on the way); the folder store's through `add` with the check
turned off, as a version written before it existed."""

from __future__ import annotations

import pytest

from indexer import SemanticIndex, build_index

SECRET = "zanzibar quetzal marmalade xylophone"
DOCS = [
    {"id": "pub", "text": "cats purr on the sofa in the afternoon", "metadata": {"team": "a"}},
    {"id": "list", "text": "dogs bark at the postman every morning",
     "metadata": {"team": "b", "access": ["hr"]}},
    {"id": "legacy", "text": SECRET, "metadata": {"team": "ultraviolet", "access": ["hr"]}},
]
READS = {  # readers -> the documents they see
    ("hr",): {"pub", "list", "legacy"},
    ("sales", "bob"): {"pub"},
    (): {"pub"},
    None: {"pub", "list", "legacy"},
}


def bare_in_milvus(index, doc_id: str) -> None:
    """Rewrite `doc_id`'s rows in both collections with access "hr", through the client."""
    client, pick = index.client, f'doc_id == "{doc_id}"'
    for collection in (index.address.collection, index._rows.docs):
        rows = client.query(collection, filter=pick, output_fields=["*"])
        for row in rows:
            row.pop("sparse", None)  # the BM25 function's output: Milvus makes it again
            if row["metadata"]:  # a document's later parts hold none
                row["metadata"]["access"] = "hr"
        client.delete(collection, filter=pick)
        client.insert(collection, rows)


@pytest.fixture(params=["folder", "milvus"])
def index(request, tmp_path, tiny_encoder, monkeypatch):
    if request.param == "milvus":
        pytest.importorskip("milvus_lite")
        where = f"milvus://{tmp_path}/legacy.db?collection=legacy"
        build_index(DOCS, where, model=tiny_encoder, preset="flat")
        bare_in_milvus(SemanticIndex.open(where, encoder=tiny_encoder), "legacy")
    else:
        where = tmp_path / "legacy"
        build_index(DOCS[:2], where, model=tiny_encoder, preset="flat")
        with monkeypatch.context() as m:
            m.setattr("indexer.validation.check_access", lambda value, *_: value)
            writer = SemanticIndex.open(where, encoder=tiny_encoder)
            writer.add([{**DOCS[2], "metadata": {"team": "ultraviolet", "access": "hr"}}])
            writer.save()
    index = SemanticIndex.open(where, encoder=tiny_encoder)
    assert index.documents(["legacy"])["legacy"].metadata["access"] == "hr"  # stored bare
    yield index
    index.close()


@pytest.mark.parametrize("readers", list(READS), ids=str)
def test_every_read_agrees_on_a_bare_string(index, readers):
    seen = READS[readers]
    for mode in ("dense", "lexical", "hybrid"):
        hits = index.search(SECRET, k=10, mode=mode, readers=readers)
        assert {h.doc_id for h in hits} <= seen, mode
        if "legacy" in seen:
            assert hits[0].doc_id == "legacy", mode  # found by its own words
    assert set(index.documents(["pub", "list", "legacy"], readers=readers)) == seen
    assert set(index.missing(["pub", "list", "legacy"], readers=readers)) == \
        {"pub", "list", "legacy"} - seen
    assert ("ultraviolet" in index.field_values("team", readers=readers)) == ("legacy" in seen)
    counts = index.counts(readers=readers)
    assert counts["documents"] == len(seen) and counts["chunks"] == len(seen)
    assert index.stats(readers=readers).documents == len(seen)
    if "legacy" in seen:
        assert index.chunk_spans("legacy", readers=readers)
    else:
        with pytest.raises(KeyError):
            index.document("legacy", readers=readers)
        assert not index.chunk_spans("legacy", readers=readers)
