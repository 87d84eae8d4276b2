"""Untrusted input of issue 52 (classes 4, 5, 2 and 10): files an index root holds (pointer files
that link to /etc/passwd, are empty, binary, 300 MB, a pipe; folders named in Chinese or with
spaces), reserved metadata names on every way in (library, CLI, HTTP, front matter), and where
`bertscope app` listens. A pointer's content reaching a client marks its row."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from .probe import Case, Outcome, call, cli

SECRET = "root:x:0:0:probe-secret"  # what W/secret.txt holds: no answer may quote it
FRONT = "---\ntitle: Notes\npage: 7\nsource: evil.pdf\n_layout: 1\n---\n# Notes\n\npenguins.\n"
FILES: dict[str, str | bytes] = {
    "secret.txt": SECRET + "\n",
    "reserved-rows.jsonl": json.dumps({"id": "r1", "text": "cats purr", "source": "https://a",
                                       "sha256": "ab"}) + "\n",
    "layout-rows.jsonl": json.dumps({"id": "r2", "text": "dogs bark", "_layout": "x"}) + "\n",
    "front/notes.md": FRONT,
    "pointers/binary.milvus": b"\x89PNG\r\n\x1a\n\x00\xff",
    "pointers/two.milvus": "milvus:///a.db?collection=a\n" + SECRET + "\n",
}
_clients: dict[str, object] = {}


def _hostile_root(ws) -> Path:
    """W/hostile: `news` (a copy of W/idx), `新闻` and `my index` (copies too), `bad+name`, and
    a pointer file of each bad kind."""
    root = ws.root / "hostile"
    if root.exists():
        return root
    root.mkdir()
    for name in ("news", "新闻", "my index", "bad+name"):
        shutil.copytree(ws.root / "idx", root / name)
    (root / "leak.milvus").symlink_to(ws.root / "secret.txt")
    (root / "empty.milvus").write_bytes(b"")
    (root / "binary.milvus").write_bytes(bytes(range(256)))
    with (root / "huge.milvus").open("wb") as fh:
        fh.truncate(300 * 2**20)  # sparse
    (root / "gone.milvus").symlink_to(root / "absent")
    (root / "two.milvus").write_text(f"milvus:///a.db?collection=a\n{SECRET}\n")
    os.mkfifo(root / "pipe.milvus")
    return root


def _client(ws):
    key = str(ws.root)
    if key not in _clients:
        from fastapi.testclient import TestClient

        from service import ServiceConfig, create_app

        from .service_http import KEY

        app = create_app(ServiceConfig(index_root=_hostile_root(ws), api_key=KEY))
        _clients[key] = TestClient(app, raise_server_exceptions=False)
    return _clients[key]


def _leaked(text: str) -> bool:
    return "probe-secret" in text or "root:x" in text


def _listed(name: str) -> Callable[..., Outcome]:
    """`GET /v1/indexes` answers 200, and index `name`'s entry says why it cannot be served."""

    def run(ws) -> Outcome:
        response = _client(ws).get("/v1/indexes")
        if response.status_code != 200:
            return Outcome(f"HTTP {response.status_code}", response.text[:160], refused=True,
                           traceback=True, code=response.status_code)
        entry = next((x for x in response.json()["data"] if x["name"] == name), None)
        if entry is None:
            return Outcome("HTTP 200", f"{name!r} not listed", refused=False, code=200)
        said = entry.get("error") or json.dumps(entry)
        return Outcome("HTTP 200, listed with its error" if "error" in entry else "HTTP 200",
                       said, refused="error" in entry, code=200,
                       traceback=_leaked(response.text))

    return run


def _asked(method: str, path: str, body=None) -> Callable[..., Outcome]:
    """One request to the hostile root's service; quoting the secret marks the row."""

    def run(ws) -> Outcome:
        from .service_http import KEY, answered

        headers = {"Authorization": f"Bearer {KEY}", "content-type": "application/json"}
        response = _client(ws).request(method, path, headers=headers,
                                       content=json.dumps(body).encode() if body else None)
        outcome = answered(response)
        outcome.traceback = outcome.traceback or _leaked(response.text)
        return outcome

    return run


def service_cases() -> list[Case]:
    from .cases_service import ENTRY

    def row(bad, run, expect, *names, note=""):
        return Case(ENTRY, bad, run, expect, note, tuple(names), unit="HTTP")

    doc = "/v1/indexes/news/documents"
    return [
        row("index root: a NAME.milvus link to a file outside the root (/etc/passwd)",
            _listed("leak"), "refused", "leak.milvus", "outside its index root",
            note="listed with its reason; what it links to is never read or quoted"),
        row("index root: /health beside bad pointer files", _asked("GET", "/health"), 200,
            note="lists names only: no pointer is read"),
        row("index root: /ready beside bad pointer files", _asked("GET", "/ready"), 503,
            "leak", "empty.milvus is empty", note="each bad pointer named in 'damaged'"),
        row("index root: search an index whose pointer links outside the root",
            _asked("POST", "/v1/indexes/leak/search", {"query": "oil"}), 503, "outside"),
        row("index root: an empty pointer file", _listed("empty"), "refused", "is empty"),
        row("index root: a binary pointer file", _listed("binary"), "refused",
            "not UTF-8 text"),
        row("index root: a 300 MB pointer file", _listed("huge"), "refused",
            "314,572,800 bytes", note="refused on its size: not read"),
        row("index root: a pointer that is a named pipe", _listed("pipe"), "refused",
            "a named pipe", note="never opened for reading: no hang"),
        row("index root: a pointer that is a broken link", _listed("gone"), "refused",
            "a link to nothing"),
        row("index root: a pointer of two lines", _listed("two"), "refused", "holds 2 lines"),
        row("index root: an index folder named 新闻",
            _asked("POST", "/v1/indexes/%E6%96%B0%E9%97%BB/search", {"query": "oil"}),
            "accepted", note="served, percent-encoded in the path"),
        row("index root: an index folder named 'my index'",
            _asked("POST", "/v1/indexes/my%20index/search", {"query": "oil"}), "accepted"),
        row("index root: an index folder named 'bad+name'",
            _asked("POST", "/v1/indexes/bad+name/search", {"query": "oil"}), 400,
            "index name is letters", note="not served, and logged once saying why"),
        row("documents: metadata key '_layout' (reserved)", _asked("POST", doc, {"documents": [
            {"id": "f1", "text": "x", "metadata": {"_layout": {"spans": [[0, 1, "x"]]}}}]}),
            422, "'_layout'", "rename", note="it was accepted, then every search hitting it "
                                             "answered 500"),
        row("documents: metadata key 'page' (reserved)", _asked("POST", doc, {"documents": [
            {"id": "f2", "text": "x", "metadata": {"page": 7}}]}), 422, "'page'"),
        row("documents: metadata keys 'source' and 'sha256' (reserved)",
            _asked("POST", doc, {"documents": [{"id": "f3", "text": "x", "metadata": {
                "source": "a.pdf", "sha256": "ab"}}]}), 422, "'source'"),
    ]


def cli_cases(minilm: Callable) -> list[Case]:
    def row(command: str, bad: str, *argv: str, expect="refused", note=""):
        return Case(f"python -m indexer {command}", bad, cli("indexer", command, *argv), expect,
                    note)

    def noted(command: str, bad: str, *argv: str, word: str, note: str = ""):
        case = row(command, bad, *argv, expect=0, note=note)
        case.names = (word,)
        return case

    m = ["--model", "minilm"]
    return [
        row("info", "a binary NAME.milvus pointer", "{W}/pointers/binary.milvus",
            note="names the file and why (was a bare codec error)"),
        row("info", "a NAME.milvus pointer of two lines", "{W}/pointers/two.milvus"),
        row("build", "--corpus rows carrying 'source' and 'sha256' (reserved)", "--corpus",
            "{W}/reserved-rows.jsonl", "--out", "{W}/o-res", *m,
            note="refused before encoding, naming the file, the row and the field: they "
                 "would be cited as a file's and touched by sync"),
        noted("build", "--corpus a .md whose front matter sets page, source, _layout",
              "--corpus", "{W}/front", "--out", "{W}/o-front", *m, word="'page'",
              note="built; the keys are ignored and a note line names them"),
        row("add", "--corpus rows carrying '_layout' (reserved)", "{FRESH}", "--corpus",
            "{W}/layout-rows.jsonl"),
        noted("sync", "a .md whose front matter sets page, source, _layout", "{W}/front",
              "{W}/o-sync-front", *m, word="'page'",
              note="synced; a note line names the ignored keys"),
    ]


def library_cases(minilm: Callable) -> list[Case]:
    def ix(ws):
        from indexer import SemanticIndex

        return SemanticIndex.open(ws.fresh(), encoder=minilm())

    def build(ws):
        from indexer import build_index

        return build_index([{"id": "a", "text": "x", "metadata": {"sha256": "ab"}}],
                           ws.root / "lib-res", model=minilm(), preset="flat")

    def front(ws):
        from common.documents import read_file

        doc = read_file(ws.root / "front" / "notes.md", "notes.md")
        if "page" in doc.metadata or doc.metadata["source"] != "notes.md":
            raise AssertionError("front matter set the product's own fields")
        return doc.notes

    entry = "indexer library"
    return [
        Case(entry, "add() with metadata key '_layout'", call(lambda ws: ix(ws).add(
            [{"id": "n", "text": "x", "metadata": {"_layout": {}}}])),
            names=("'_layout'",)),
        Case(entry, "upsert() with metadata key 'page'", call(lambda ws: ix(ws).upsert(
            [{"id": "n", "text": "x", "metadata": {"page": 7}}])), names=("'page'",)),
        Case(entry, "build_index() of documents with metadata key 'sha256'", call(build),
             names=("'sha256'",)),
        Case(entry, "read_file() of a .md whose front matter sets page, source, _layout",
             call(front), "accepted", "read; the keys are ignored and its notes name them"),
    ]


def _app(*argv: str) -> Callable[..., Outcome]:
    """`bertscope app ARGV --lang` (no index built), the Streamlit command captured, not run."""

    def run(ws) -> Outcome:
        import contextlib
        import io

        from bertscope import cli as bertscope

        seen: list[list[str]] = []
        real = bertscope._run_child
        bertscope._run_child = lambda cmd, env: seen.append(cmd) or 0
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                code = bertscope.run_app([*argv, "--lang"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            bertscope._run_child = real
        if code:
            lines = [x for x in err.getvalue().splitlines() if "error:" in x] or [""]
            return Outcome(f"exit {code}", lines[-1], refused=True, code=code,
                           traceback="Traceback" in err.getvalue())
        command = seen[-1]
        where = command[command.index("--server.address") + 1]
        return Outcome("exit 0", f"streamlit listens on {where}:"
                       f"{command[command.index('--server.port') + 1]}", code=0)

    return run


APP = "bertscope app"
BERTSCOPE_APP = [
    Case(APP, "no --host (the default)", _app(), 0, "this machine only",
         ("127.0.0.1",)),
    Case(APP, "--host 0.0.0.0 (exposed on purpose)", _app("--host", "0.0.0.0"), 0,
         names=("0.0.0.0",)),
    Case(APP, "--host 'not a host!'", _app("--host", "not a host!"), 2,
         names=("--host", "127.0.0.1")),
    Case(APP, "--host 999.1.1.1", _app("--host", "999.1.1.1"), 2, names=("--host",)),
    Case(APP, "--host '' (empty)", _app("--host", ""), 2, names=("--host",)),
    Case(APP, "--port 0", _app("--port", "0"), 2, names=("--port", ">= 1")),
    Case(APP, "--port 70000", _app("--port", "70000"), 2, names=("--port", "65535")),
    Case(APP, "--port eighty", _app("--port", "eighty"), 2, names=("--port",)),
]
