"""What is Milvus's own in changing an index (milvus-lite in tmp_path): writes are live, so a
rebuild replaces the index under a reader already open; and the CLI takes a milvus:// address
where it takes a folder. The promises both stores keep are tests/indexer/test_contract.py's."""

from __future__ import annotations

import pytest

from indexer import SemanticIndex, build_index

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


@pytest.fixture
def address(tmp_path, tiny_encoder, docs) -> str:
    target = f"milvus://{tmp_path}/w.db?collection=w"
    build_index(docs[:20], target, model=tiny_encoder, preset="flat")
    return target


def test_a_rebuild_replaces_the_index_under_an_open_reader(address, tiny_encoder, docs):
    reader = SemanticIndex.open(address, encoder=tiny_encoder)
    assert len(reader) == 20
    build_index(docs[20:25], address, model=tiny_encoder, preset="flat")
    assert len(reader) == 5 and reader.missing(["d000", "d020"]) == ["d000"]
    assert {h.doc_id for h in reader.search("stocks", k=10)} == {d["id"] for d in docs[20:25]}
    assert SemanticIndex.open(address, encoder=tiny_encoder).stats().documents == 5


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
