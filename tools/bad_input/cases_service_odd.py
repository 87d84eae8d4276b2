"""The service's odder bad input: bodies that are not JSON, text that is not Unicode, numbers that
are not what they say, connections that never finish (a real server on a loopback port, with
short timeouts, sent raw bytes), and a write onto a real full disk (a small tmpfs, root only)."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from collections.abc import Callable

from .probe import Outcome

S = "/v1/indexes/news/search"
E = "/v1/embeddings"
D = "/v1/indexes/news/documents"
Q = {"query": "football"}
IDLE_S, REQUEST_S = 0.5, 1.0  # the probe server's --idle-timeout and --request-timeout
_servers: dict[str, tuple[str, int]] = {}


def _server(ws) -> tuple[str, int]:
    """A real server (uvicorn, as `python -m service` runs it) over W/service, in a thread."""
    key = str(ws.root)
    if key not in _servers:
        import uvicorn

        from service import ServiceConfig, create_app
        from service.server import uvicorn_config

        from .service_http import service_client

        service_client(ws)  # W/service/news made
        config = ServiceConfig(index_root=ws.root / "service", idle_timeout_s=IDLE_S,
                               request_timeout_s=REQUEST_S)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(uvicorn_config(create_app(config), config, host="127.0.0.1",
                                               port=port, log_level="critical"))
        threading.Thread(target=server.run, daemon=True).start()
        deadline = time.monotonic() + 30
        while not server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the probe's server did not start in 30 s")
            time.sleep(0.05)
        _servers[key] = ("127.0.0.1", port)
    return _servers[key]


def raw(sent: bytes, *, wait_s: float = 10) -> Callable[..., Outcome]:
    """A case runner: `sent` on a new connection, then read until the server closes it; the
    outcome is the answer (or that none came) and how long the server took to close."""

    def run(ws) -> Outcome:
        with socket.create_connection(_server(ws)) as sock:
            started = time.monotonic()
            sock.sendall(sent)
            sock.settimeout(wait_s)
            got = b""
            try:
                while chunk := sock.recv(65536):
                    got += chunk
            except TimeoutError:
                return Outcome("still open", f"the server kept the connection {wait_s:g} s",
                               refused=False)
            after = time.monotonic() - started
        if not got:
            return Outcome("closed", f"closed after {after:.1f} s without an answer",
                           refused=True)
        head, _, body = got.partition(b"\r\n\r\n")
        status = head.split(b" ")[1].decode() if head.startswith(b"HTTP/") else "?"
        json_shape = b"application/json" in head.lower() and body.startswith(b'{"error"')
        message = f"closed after {after:.1f} s: {body.decode('utf-8', 'replace')[:160]}"
        return Outcome(f"HTTP {status}", message, traceback=not json_shape, refused=True,
                       code=int(status) if status.isdigit() else None)

    return run


def _full_disk(ws) -> Outcome:
    """Documents written over HTTP onto a real full disk; then the documents and staging
    folders there are counted."""
    from fastapi.testclient import TestClient

    from indexer import SemanticIndex
    from service import ServiceConfig, create_app

    from .service_http import KEY, answered
    from .small_disk import NoSmallDisk, fill, small_disk

    try:
        with small_disk(ws.root / "http-disk", size="4m") as disk:
            shutil.copytree(ws.root / "idx", disk / "root" / "news")
            before = SemanticIndex.open(disk / "root" / "news").stats().documents
            api = TestClient(create_app(ServiceConfig(index_root=disk / "root", api_key=KEY)),
                             raise_server_exceptions=False,
                             headers={"Authorization": f"Bearer {KEY}"})
            filler = fill(disk)
            outcome = answered(api.post(D, json={"documents": [
                {"id": f"n{i}", "text": "new text " * 300} for i in range(100)]}))
            filler.unlink()
            after = SemanticIndex.open(disk / "root" / "news").stats().documents
            staging = len(list((disk / "root" / "news").glob(".staging-*")))
    except NoSmallDisk as exc:
        return Outcome("skipped", str(exc), refused=True)
    outcome.message += f" · documents {before} before, {after} after; {staging} staging folders"
    return outcome


def cases(make: Callable, request: Callable) -> list:
    """The cases, made by cases_service's `_cases` and `request`."""
    search = "POST /v1/indexes/news/search HTTP/1.1\r\nHost: probe\r\n"
    return [
        *make("bodies that are not JSON", [
            ("a JSON body sent as text/plain", request("POST", S, Q, content_type="text/plain"),
             415, "'text/plain'", "application/json"),
            ("a JSON body with no content type", request("POST", S, Q, content_type=None), 415,
             "no Content-Type", "application/json"),
            ("bytes that are not UTF-8", request("POST", S, raw=b'{"query": "caf\xe9"}'), 422,
             "not valid UTF-8", "byte 14"),
            ("arrays nested 5,000 deep", request("POST", S, raw=b'{"query": "a", "filters": '
                                                     b'{"x": ' + b"[" * 5000 + b"]" * 5000 +
                                                     b"}}"), 422, "nests"),
            ("metadata nested 300 deep (every search finding it would fail)",
             request("POST", D, {"documents": [{"id": "deep", "text": "x", "metadata": {
                 "tree": json.loads("[" * 300 + "]" * 300)}}]}), 422, "metadata.tree",
             "32 levels"),
            ("a negative Content-Length", raw((search + "content-length: -5\r\n\r\n").encode()),
             400, "Content-Length"),
            ("a list of string lists as embedding input", request("POST", E, {
                "model": "minilm", "input": [["a", "b"]]}), 422, "input[0] is a list"),
        ]),
        *make("text that is not Unicode", [
            ("a lone surrogate in a query", request("POST", S, raw=b'{"query": "a \\ud800"}'),
             422, "query holds a lone surrogate"),
            ("a lone surrogate in an embedding input", request("POST", E, raw=(
                b'{"model": "minilm", "input": ["ok", "\\udc00"]}')), 422,
             "input[1] holds a lone surrogate"),
            ("a lone surrogate in a document's text", request("POST", D, raw=(
                b'{"documents": [{"id": "s1", "text": "a \\ud83d b"}]}')), 422,
             "documents[0].text (id 's1') holds a lone surrogate"),
        ]),
        *make("numbers that are not what they say", [
            ("k: true", request("POST", S, {**Q, "k": True}), 422, "k:"),
            ("weights with mode dense", request("POST", S, {**Q, "weights": [1, 1]}), 422,
             "weights", "hybrid"),
            ("an integer beyond 64 bits in a filter", request("POST", S, {
                **Q, "filters": {"year": 2 ** 70}}), 422, "year"),
        ]),
        *make("connections that never finish", [
            (f"a socket that sends nothing (--idle-timeout {IDLE_S:g} s)", raw(b""), "refused",
             "without an answer"),
            (f"headers that stop midway (--request-timeout {REQUEST_S:g} s)",
             raw((search + "Content-").encode()), 408, "--request-timeout"),
            (f"a body that stops arriving (--request-timeout {REQUEST_S:g} s)",
             raw((search + "content-type: application/json\r\ncontent-length: 100\r\n\r\n"
                  '{"query": ').encode()), 408, "--request-timeout"),
        ]),
        *make("a full disk", [
            ("100 documents written onto a full disk (a 4 MiB tmpfs)", _full_disk, 507,
             "is full", "nothing of this write was kept", "0 staging folders"),
        ]),
    ]
