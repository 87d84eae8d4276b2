"""The audit log and per-principal rate limits (issue 50): a line for each write (done or
failed) and each refused request, whole lines only after a writer is killed with SIGKILL
mid-stream, rotation by size, and a principal past `--rate-limit` answered 429 with
Retry-After (audited) while another principal goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import REPO, make_root
from fastapi.testclient import TestClient
from test_service_access import INDEXES, KEYS, keyring

from common.keys.keyfile import write_keys
from service import ServiceConfig, create_app
from service.audit import AuditLog


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


@pytest.fixture
def app_with(tmp_path, _tiny_built):
    def build(**changes):
        root = make_root(tmp_path / f"root{len(list(tmp_path.iterdir()))}", _tiny_built,
                         names=INDEXES)
        write_keys(tmp_path / "keys.toml", keyring())
        config = ServiceConfig(index_root=root, keys_file=tmp_path / "keys.toml",
                               audit_log=tmp_path / "audit.jsonl", **changes)
        return create_app(config), tmp_path / "audit.jsonl"

    return build


def client(app, who):
    headers = {"Authorization": f"Bearer {KEYS[who]}"} if who else {}
    return TestClient(app, headers=headers, raise_server_exceptions=False)


def test_each_write_and_each_refusal_is_a_line(app_with):
    app, audit = app_with()
    docs = "/v1/indexes/b/documents"
    with client(app, "writer") as writer:
        assert writer.post(docs, json={"documents": [{"id": "n1", "text": "a new note"}]}
                           ).status_code == 200
        assert writer.post(docs, json={"replace": False, "documents": [
            {"id": "n1", "text": "again"}]}).status_code == 409
        assert writer.request("DELETE", docs, json={"ids": ["n1"]}).status_code == 200
    with client(app, "reader") as reader:
        assert reader.post("/v1/indexes/a/documents", json={"documents": [
            {"id": "x", "text": "y"}]}).status_code == 403
        assert reader.post("/v1/explain", json={"index": "b", "query": "q", "passage": "p"}
                           ).status_code == 403
    with client(app, None) as anonymous:
        assert anonymous.post("/v1/indexes/a/search", json={"query": "q"}).status_code == 401
    got = [(e["principal"], e["method"], e["index"], e["documents"], e["status"], e["outcome"],
            e["reason"] if e["outcome"] == "refused" else None) for e in lines(audit)]
    assert got == [
        ("writer", "POST", "b", ["n1"], 200, "written", None),
        ("writer", "POST", "b", ["n1"], 409, "failed", None),
        ("writer", "DELETE", "b", ["n1"], 200, "written", None),
        ("reader", "POST", "a", [], 403, "refused", "scope"),
        ("reader", "POST", "b", [], 403, "refused", "scope"),
        (None, "POST", "a", [], 401, "refused", "no_key")]
    first = lines(audit)[0]
    assert first["route"] == "/v1/indexes/{name}/documents" and first["time"].endswith("Z")
    assert "already exist" in lines(audit)[1]["reason"]


WRITER = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("audit", sys.argv[2])  # alone: no service imports
audit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(audit)
log = audit.AuditLog(sys.argv[1], max_bytes=10**9)
print("ready", flush=True)
i = 0
while True:
    log.record(principal="p", method="POST", route="/r", index="i",
               documents=[f"doc-{i}-{j}" * 20 for j in range(20)], status=200, outcome="written")
    i += 1
"""


def test_no_torn_line_after_a_kill_9(tmp_path):
    path = tmp_path / "audit.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    module = REPO / "service" / "audit.py"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(module)], env=env,
                                stdout=subprocess.PIPE) for _ in range(2)]
    for w in writers:
        assert w.stdout.readline().strip() == b"ready"
    time.sleep(0.3)
    for w in writers:
        os.kill(w.pid, signal.SIGKILL)
        w.wait()
    raw = path.read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") > 10
    for line in raw.splitlines():
        assert json.loads(line)["documents_total"] == 20


def test_the_log_is_rotated_by_size(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, max_bytes=1024, keep=3)
    for i in range(60):
        log.record(principal="p", method="POST", route="/r", index="i", documents=[f"d{i}"],
                   status=200, outcome="written")
    log.close()
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2",
                                       "audit.jsonl.3"]
    assert all(f.stat().st_size <= 1024 for f in files)
    newest = lines(path)[-1]
    assert newest["documents"] == ["d59"]
    kept = [e["documents"][0] for f in reversed(files) for e in lines(f)]
    assert kept == [f"d{i}" for i in range(60 - len(kept), 60)]  # in order, none lost between


def test_a_principal_past_its_rate_limit_gets_429(app_with):
    app, audit = app_with(rate_limit=3.0)
    with client(app, "reader") as reader:
        codes = [reader.get("/v1/indexes").status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[-1] == 429
        refused = reader.get("/v1/indexes")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert "--rate-limit" in refused.json()["error"]["message"]
    with client(app, "member") as other:  # a bucket each
        assert other.get("/v1/indexes").status_code == 200
    assert {(e["principal"], e["status"], e["reason"]) for e in lines(audit)} == {
        ("reader", 429, "rate_limit")}
    with client(app, "reader") as reader:
        time.sleep(0.4)  # a token back after 1/3 s
        assert reader.get("/v1/indexes").status_code == 200


def test_guessing_keys_is_rate_limited_per_address(app_with):
    app, _ = app_with(rate_limit=3.0)
    with client(app, "member") as known:  # verified once: one token of the address's bucket
        assert known.get("/v1/indexes").status_code == 200
    codes = []
    for i in range(3):
        with TestClient(app, headers={"Authorization": f"Bearer guess-{i}"},
                        raise_server_exceptions=False) as guesser:
            codes.append(guesser.get("/v1/indexes").status_code)
    assert codes == [401, 401, 429]  # each new key costs a hash per stored one: bounded
    with client(app, "member") as known:  # a verified key takes no token of the address
        assert known.get("/v1/indexes").status_code == 200
