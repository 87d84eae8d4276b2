"""The service serves a Milvus index as it serves a folder: an index root holding `tiny` (a
folder) and `tiny-m.milvus` (a pointer to the same index migrated into milvus-lite) lists both,
with their stores, and the Milvus one's dense top-5 is the folder one's. A rebuild of the
collection under the running server is noticed as a folder's new version is."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
from conftest import KEY, REPO, SUBJECTS, make_root, running_server

pytest.importorskip("milvus_lite")


def cli(*argv: str) -> None:
    """`python -m indexer ...` in its own process: milvus-lite serves a .db to one process, and
    the server must open it after."""
    done = subprocess.run([sys.executable, "-m", "indexer", *argv], capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-1500:]


def test_a_milvus_pointer_is_listed_searched_and_reopened(tmp_path, _tiny_built):
    root = make_root(tmp_path / "root", _tiny_built, names=("tiny",))
    address = f"milvus://{tmp_path / 'm.db'}?collection=tiny"
    cli("migrate", str(root / "tiny"), address)
    (root / "tiny-m.milvus").write_text(address + "\n")
    (root / "broken.milvus").write_bytes(b"\xff\xfe not an address")  # fails alone
    with running_server(root, tmp_path) as server, server.client() as api:
        listed = {x["name"]: x for x in api.get("/v1/indexes").json()["data"]}
        assert "broken.milvus is not UTF-8 text" in listed.pop("broken")["error"]
        assert {n: x["store"] for n, x in listed.items()} == {"tiny": "folder",
                                                              "tiny-m": "milvus"}
        assert listed["tiny-m"]["documents"] == listed["tiny"]["documents"] == 20
        for query in SUBJECTS:
            ranked = [[(h["doc_id"], round(h["score"], 4)) for h in api.post(
                f"/v1/indexes/{name}/search", json={"query": query, "k": 5}).json()["hits"]]
                for name in ("tiny", "tiny-m")]
            assert ranked[0] == ranked[1] and len(ranked[0]) == 5, query
        assert api.post("/v1/indexes/tiny-m/search",
                        json={"query": "cats", "k": 3, "mode": "bm25"}).status_code == 200
        # a write through the server makes the collection's next version; readers reopen it
        # as they reopen a folder's (the location's stamp changed)
        with server.client(KEY) as writer:
            new = {"id": "new", "text": "penguins waddle across the ice",
                   "metadata": {"year": 2030}}
            wrote = writer.post("/v1/indexes/tiny-m/documents", json={"documents": [new]})
            forged = writer.post("/v1/indexes/tiny-m/documents", json={"documents": [
                {"id": "forged", "text": "x", "metadata": {"_layout": {"spans": 1}}}]})
        assert wrote.status_code == 200 and wrote.json()["version"] == 1, wrote.text
        assert forged.status_code == 422 and "'_layout'" in forged.text, forged.text
        hits = api.post("/v1/indexes/tiny-m/search", json={
            "query": "penguins waddle across the ice", "k": 1}).json()["hits"]
        assert hits[0]["doc_id"] == "new"
        listed = {x["name"]: x for x in api.get("/v1/indexes").json()["data"]}
        assert "error" in listed["broken"]
        assert (listed["tiny-m"]["documents"], listed["tiny-m"]["version"]) == (21, 1)
        assert listed["tiny"]["documents"] == 20


def test_a_dead_milvus_server_is_503_not_the_client_s_fault(tmp_path, monkeypatch):
    """Issue 52, class 11: a pointer to a Milvus server that does not answer was a 422 (the
    client's fault) on search; it is the operator's, as a damaged index is: 503."""
    from fastapi.testclient import TestClient
    from test_service_errors import error_of

    from service import ServiceConfig, create_app

    monkeypatch.setenv("BERTSCOPE_MILVUS_TIMEOUT_S", "1")
    root = tmp_path / "root"
    root.mkdir()
    with socket.socket() as s:  # a port nothing listens on (a `conftest` import inside a
        s.bind(("127.0.0.1", 0))  # test may find another folder's conftest in sys.modules)
        port = s.getsockname()[1]
    (root / "dead.milvus").write_text(f"milvus://127.0.0.1:{port}?collection=news\n")
    api = TestClient(create_app(ServiceConfig(index_root=root)), raise_server_exceptions=False)
    message = error_of(api.post("/v1/indexes/dead/search", json={"query": "oil"}), 503)
    assert "cannot reach Milvus at" in message and "start the server" in message
    assert api.get("/health").status_code == 200
