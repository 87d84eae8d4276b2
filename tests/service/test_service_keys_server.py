"""`python -m service --keys` as a user runs it (issue 50): the startup line says who may read,
a key made by `python -m service keys add` reads within its scope, and `keys remove` run by
another process revokes it within a second with no restart; the audit log holds the refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx
import pytest
from conftest import REPO, free_port, make_root, wait_ready

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}


def service(*argv: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service", *argv], env=ENV, text=True,
                          capture_output=True, timeout=120, **options)


@pytest.mark.slow  # a server process (it imports torch)
def test_a_server_with_keys_end_to_end(tmp_path, _tiny_built):
    root = make_root(tmp_path / "root", _tiny_built, names=("tiny", "other"))
    keys = tmp_path / "keys.yaml"
    made = service("keys", "add", "ann", "--keys", str(keys), "--groups", "g1,g2",
                   "--scope", "tiny:read")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip().splitlines()[-1]
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "service", "--port", str(port),
                                    "--index-root", str(root), "--keys", str(keys)],
                                   stdout=out, stderr=subprocess.STDOUT, env=ENV)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, lambda: process.poll() is None)
        assert "every route but /health, /ready and the docs needs a Bearer key" in \
            log.read_text()
        search = {"query": "cat", "k": 2}
        assert httpx.post(f"{url}/v1/indexes/tiny/search", json=search).status_code == 401
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"},
                          timeout=60) as ann:
            assert ann.post("/v1/indexes/tiny/search", json=search).status_code == 200
            assert ann.post("/v1/indexes/other/search", json=search).status_code == 403
            assert service("keys", "remove", "ann", "--keys", str(keys)).returncode == 0
            revoked = time.monotonic()
            while ann.post("/v1/indexes/tiny/search", json=search).status_code != 401:
                assert time.monotonic() - revoked < 1.0, "a revoked key worked after 1 s"
                time.sleep(0.05)
    finally:
        process.terminate()
        process.wait(timeout=30)
    audit = [json.loads(x) for x in (root / ".audit.jsonl").read_text().splitlines()]
    assert [(e["principal"], e["index"], e["status"], e["reason"]) for e in audit][:3] == [
        (None, "tiny", 401, "no_key"), ("ann", "other", 403, "scope"),
        (None, "tiny", 401, "bad_key")]
