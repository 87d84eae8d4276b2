"""The index root's files are untrusted input (issue 52, class 4). Pointer files that name no
index — a link to /etc/passwd, an empty file, a binary one, a 300 MB one, a named pipe — are each
reported by name with a short reason and never quoted, while `/health`, `/ready` and
`/v1/indexes` keep answering and the other indexes keep serving; index folders named `新闻` and
`my index` are served, and a name the service cannot serve is logged once, saying why."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

PASSWD = Path("/etc/passwd")


def _hostile_root(root: Path) -> dict[str, str]:
    """Bad pointers beside the fixture's `tiny` and `writable`: name -> the words of its error."""
    (root / "leak.milvus").symlink_to(PASSWD)
    (root / "empty.milvus").write_bytes(b"")
    (root / "binary.milvus").write_bytes(bytes(range(256)) * 4)
    with (root / "huge.milvus").open("wb") as fh:  # sparse: 300 MB that take no disk
        fh.truncate(300 * 2**20)
    (root / "gone.milvus").symlink_to(root / "absent-file")
    os.mkfifo(root / "pipe.milvus")
    return {"leak": "outside its index root", "empty": "is empty",
            "binary": "is not UTF-8 text", "huge": "314,572,800 bytes",
            "gone": "a link to nothing", "pipe": "a named pipe"}


def _no_secret(text: str) -> None:
    assert "root:" not in text and "/bin/" not in text, text[:500]


@pytest.mark.skipif(not PASSWD.is_file(), reason="needs /etc/passwd to link to")
def test_bad_pointer_files_are_named_never_quoted_and_the_rest_serves(thread_server):
    url, app = thread_server()
    root = app.state.service.config.index_root
    why = _hostile_root(root)
    with httpx.Client(base_url=url, timeout=60) as api:
        health = api.get("/health")
        assert health.status_code == 200, health.text
        assert health.json()["indexes"] == 2 + len(why)
        listed = api.get("/v1/indexes")
        assert listed.status_code == 200, listed.text
        _no_secret(listed.text)
        entries = {x["name"]: x for x in listed.json()["data"]}
        for name, words in why.items():
            assert words in entries[name]["error"] and f"{name}.milvus" in entries[name]["error"]
        assert entries["tiny"]["documents"] == 20 and "error" not in entries["tiny"]
        ready = api.get("/ready")
        assert ready.status_code == 503 and set(why) <= set(ready.json()["damaged"])
        _no_secret(ready.text)
        for name in why:
            searched = api.post(f"/v1/indexes/{name}/search", json={"query": "cats"})
            assert searched.status_code == 503, searched.text
            assert why[name] in searched.json()["error"]["message"]
            _no_secret(searched.text)
        hit = api.post("/v1/indexes/tiny/search", json={"query": "the cat sleeps", "k": 1})
        assert hit.status_code == 200 and hit.json()["hits"], hit.text


def test_index_folders_with_chinese_names_or_spaces_are_served(thread_server, caplog):
    url, app = thread_server()
    root = app.state.service.config.index_root
    for name in ("新闻", "my index", "bad+name"):
        shutil.copytree(root / "tiny", root / name)
    with caplog.at_level(logging.WARNING, logger="bertscope.service"), \
            httpx.Client(base_url=url, timeout=60) as api:
        names = [x["name"] for x in api.get("/v1/indexes").json()["data"]]
        assert {"新闻", "my index"} <= set(names) and "bad+name" not in names
        for name in ("新闻", "my index"):
            got = api.post(f"/v1/indexes/{quote(name)}/search",
                           json={"query": "interest rates rose", "k": 2})
            assert got.status_code == 200 and len(got.json()["hits"]) == 2, (name, got.text)
        api.get("/health")  # asked again: logged once, not on every call
    said = [r.getMessage() for r in caplog.records if "bad+name" in r.getMessage()]
    assert len(said) == 1 and "not serving" in said[0] and "rename it" in said[0], said
    schema = httpx.get(f"{url}/openapi.json", timeout=60).json()
    pattern = schema["components"]["schemas"]["ExplainRequest"]["properties"]["index"]
    assert "\\u4e00" in str(pattern)  # the schema's name rule is the server's
