"""Keys and scopes over a Milvus index (issue 50: both stores): the rules are the name's, so a
`NAME.milvus` pointer is guarded as a folder is: a 403 the same bytes as for a missing index,
listed and searched only within scope, written (and audited) with `write`."""

from __future__ import annotations

import json

import pytest
from conftest import make_root
from fastapi.testclient import TestClient
from test_service_access import KEYS, keyring
from test_service_milvus import cli

from common.keys.keyfile import write_keys
from service import ServiceConfig, create_app

pytest.importorskip("milvus_lite")


@pytest.mark.slow  # a migration into milvus-lite in its own process
def test_a_milvus_index_is_guarded_by_its_name(tmp_path, _tiny_built):
    root = make_root(tmp_path / "root", _tiny_built, names=("a",))
    address = f"milvus://{tmp_path / 'm.db'}?collection=tiny"
    cli("migrate", str(root / "a"), address)
    (root / "team-a-m.milvus").write_text(address + "\n")
    write_keys(tmp_path / "keys.toml", keyring())
    app = create_app(ServiceConfig(index_root=root, keys_file=tmp_path / "keys.toml",
                                   audit_log=tmp_path / "audit.jsonl"))

    def api(who):
        return TestClient(app, headers={"Authorization": f"Bearer {KEYS[who]}"},
                          raise_server_exceptions=False)

    search = {"query": "the cat sleeps", "k": 3}
    with api("reader") as reader:
        there = reader.post("/v1/indexes/team-a-m/search", json=search)
        gone = reader.post("/v1/indexes/team-a-gone/search", json=search)
        assert there.status_code == gone.status_code == 403 and there.content == gone.content
        assert [x["name"] for x in reader.get("/v1/indexes").json()["data"]] == ["a"]
    with api("member") as member:
        listed = member.get("/v1/indexes").json()["data"]
        assert [(x["name"], x["store"]) for x in listed] == [("team-a-m", "milvus")]
        hits = member.post("/v1/indexes/team-a-m/search", json=search)
        assert hits.status_code == 200 and len(hits.json()["hits"]) == 3
        refused = member.post("/v1/indexes/team-a-m/documents",
                              json={"documents": [{"id": "x", "text": "y"}]})
        assert refused.status_code == 403
    with api("admin") as admin:
        wrote = admin.post("/v1/indexes/team-a-m/documents",
                           json={"documents": [{"id": "m1", "text": "penguins on ice"}]})
        assert wrote.status_code == 200, wrote.text
    audit = [json.loads(x) for x in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [(e["principal"], e["index"], e["status"]) for e in audit] == [
        ("reader", "team-a-m", 403), ("reader", "team-a-gone", 403),
        ("member", "team-a-m", 403), ("admin", "team-a-m", 200)]
