"""Document writes: off without --api-key-file, Bearer-only with it; an add or replace is seen by
the next search, and so is a write made by another process (`python -m indexer add`) with no
restart; a conflicting write answers 409 and loses nothing."""

from __future__ import annotations

import json
import threading

import httpx
import pytest
from conftest import KEY

from indexer import SemanticIndex

DOCS = "/v1/indexes/writable/documents"


@pytest.fixture(scope="module")
def writer(server):
    with server.client(KEY) as client:
        yield client


def bm25_ids(client, query: str) -> list[str]:
    body = {"query": query, "k": 50, "mode": "bm25"}
    got = client.post("/v1/indexes/writable/search", json=body)
    assert got.status_code == 200, got.text
    return [h["doc_id"] for h in got.json()["hits"]]


def test_writes_need_the_key(server):
    doc = {"documents": [{"id": "nokey", "text": "written without a key"}]}
    with server.client() as anonymous:
        refused = anonymous.post(DOCS, json=doc)
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        assert "Bearer" in refused.json()["error"]["message"]
        assert anonymous.request("DELETE", DOCS, json={"ids": ["doc00"]}).status_code == 401
    with server.client("wrong-key-0123456789") as wrong:
        assert "wrong" in wrong.post(DOCS, json=doc).json()["error"]["message"]
    with server.client() as anonymous:
        assert bm25_ids(anonymous, "without key") == []


def test_writes_are_off_without_a_key_file(thread_server):
    url, _ = thread_server()
    with httpx.Client(base_url=url, headers={"Authorization": "Bearer anything"}) as client:
        refused = client.post(DOCS, json={"documents": [{"id": "x", "text": "y"}]})
    assert refused.status_code == 403 and "--api-key-file" in refused.json()["error"]["message"]


def test_add_replace_and_delete_are_seen_by_the_next_search(writer):
    added = writer.post(DOCS, json={"documents": [
        {"id": "zep", "text": "a zeppelin drifted over the harbour", "title": "Airship",
         "metadata": {"kind": "sky", "year": 2024}}]})
    assert added.status_code == 200, added.text
    assert added.json()["documents"] == 1 and added.json()["version"] >= 2
    assert bm25_ids(writer, "zeppelin") == ["zep"]
    writer.post(DOCS, json={"documents": [{"id": "zep", "text": "a balloon over the harbour"}]})
    assert bm25_ids(writer, "zeppelin") == [] and bm25_ids(writer, "balloon") == ["zep"]
    gone = writer.request("DELETE", DOCS, json={"ids": ["zep", "never-there"]})
    assert gone.json()["deleted"] == 1 and gone.json()["missing"] == ["never-there"]
    assert bm25_ids(writer, "balloon") == []


def test_a_conflicting_write_is_409_and_loses_nothing(writer, server, tiny_encoder):
    before = SemanticIndex.open(server.root / "writable", encoder=tiny_encoder)
    original = before.document("doc03").text
    taken = writer.post(DOCS, json={"replace": False, "documents": [
        {"id": "fresh1", "text": "a fresh note"}, {"id": "doc03", "text": "overwritten"}]})
    assert taken.status_code == 409, taken.text
    assert "doc03" in taken.json()["error"]["message"]
    # two writers add the same new id at once: one wins whole, the other is told
    results = []

    def add(text: str) -> None:
        body = {"replace": False, "documents": [{"id": "race", "text": text}]}
        results.append(writer.post(DOCS, json=body))

    threads = [threading.Thread(target=add, args=(f"racer {i} wrote this",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status_code for r in results) == [200, 409]
    after = SemanticIndex.open(server.root / "writable", encoder=tiny_encoder)
    assert after.missing(["fresh1"]) == ["fresh1"]  # the refused batch wrote nothing
    assert after.document("doc03").text == original
    assert after.document("race").text.startswith("racer ")
    assert len(after) == len(before) + 1


def test_a_cli_add_is_seen_without_a_restart(writer, server, run_cli, tmp_path):
    assert bm25_ids(writer, "xylophone") == []
    corpus = tmp_path / "more.jsonl"
    corpus.write_text(json.dumps({"id": "cli1", "text": "a xylophone solo"}) + "\n")
    run = run_cli("indexer", "add", str(server.root / "writable"), "--corpus", str(corpus))
    assert run.code == 0, run
    assert bm25_ids(writer, "xylophone") == ["cli1"]
