"""Fourth-round bad input to the service and the commands (issue 52, classes 7, 8 and 11): flags
that broke a running server or named neither flag nor value (`--batch-wait-ms inf`,
`--idle-timeout 1e-9`, a bad `--host`, a file as `--index-root`), bodies whose validation cost
was unbounded (500,000 unknown keys held the event loop for seconds), a dead Milvus server (a
422), and the commands' own words (`bertscope --version`, Ctrl-C in `bertscope app`, a value
starting with '-')."""

from __future__ import annotations

import contextlib
import io
import json
import socket
from collections.abc import Callable

from .probe import Case, Outcome, cli

SERVE = "python -m service"


def _serve(bad: str, *argv: str, names: tuple[str, ...] = (), note: str = "",
           expect: int = 2) -> Case:
    """`python -m service ARGV` (over W's index root unless ARGV names one): refused before it
    serves; a flag accepted by mistake would start a server, which the probe would wait on."""
    root = () if "--index-root" in argv else ("--index-root", "{W}/service")
    return Case(SERVE, bad, cli("service", *root, *argv), expect, note, names)


SERVICE_FLAGS = [
    _serve("--batching --batch-wait-ms inf", "--batching", "--batch-wait-ms", "inf",
           names=("--batch-wait-ms", "finite"),
           note="the batcher thread died; requests hung and only SIGKILL stopped the server"),
    _serve("--batch-wait-ms nan", "--batch-wait-ms", "nan", names=("--batch-wait-ms",)),
    _serve("--batch-wait-ms 5000", "--batch-wait-ms", "5000", names=("--batch-wait-ms", "1000")),
    _serve("--batch-wait-ms -1", "--batch-wait-ms", "-1", names=("--batch-wait-ms", ">= 0")),
    _serve("--idle-timeout 1e-9", "--idle-timeout", "1e-9", names=("--idle-timeout", "0.5"),
           note="half of all /health calls were dropped"),
    _serve("--idle-timeout inf", "--idle-timeout", "inf", names=("--idle-timeout",)),
    _serve("--idle-timeout 0", "--idle-timeout", "0", names=("--idle-timeout",)),
    _serve("--request-timeout 0.1", "--request-timeout", "0.1",
           names=("--request-timeout", "0.5")),
    _serve("--request-timeout nan", "--request-timeout", "nan", names=("--request-timeout",)),
    _serve("--host 'not a host!'", "--host", "not a host!", names=("--host", "not a host!"),
           note="the message named neither flag nor value"),
    _serve("--host 999.1.1.1", "--host", "999.1.1.1", names=("--host", "999.1.1.1")),
    _serve("--host '' (empty)", "--host", "", names=("--host",)),
    _serve("--host 0.0.0.0:8000 (a port in the host)", "--host", "0.0.0.0:8000",
           names=("--host",)),
    _serve("--index-root a file", "--index-root", "{W}/corpus.jsonl",
           names=("--index-root", "is a file"), expect=1,
           note="it was called 'does not exist yet', then failed naming neither"),
    _serve("--port 70000", "--port", "70000", names=("--port",), expect=1),
    _serve("--port http", "--port", "http", names=("--port",)),
    _serve("--max-batch 0", "--max-batch", "0", names=("--max-batch",), expect=1),
    _serve("--workers 0", "--workers", "0", names=("--workers",), expect=1),
    _serve("--faiss-threads 0", "--faiss-threads", "0", names=("--faiss-threads",), expect=1),
    _serve("--max-concurrent-requests -1", "--max-concurrent-requests", "-1",
           names=("--max-concurrent-requests",), expect=1),
    _serve("--api-key-file that does not exist", "--api-key-file", "{W}/no-key",
           names=("--api-key-file",), expect=1),
    _serve("--log-level loud", "--log-level", "loud", names=("--log-level",)),
    _serve("-bogus (a value read as a flag)", "-bogus", names=("'-bogus'", "--")),
]


# -- bodies whose validation cost was unbounded; a dead Milvus server ------------------------
def _body(path: str, build: Callable[[], dict]) -> Callable[..., Outcome]:
    def run(ws) -> Outcome:
        from .service_http import KEY, answered, service_client

        content = json.dumps(build()).encode()
        return answered(service_client(ws).post(path, content=content, headers={
            "content-type": "application/json", "Authorization": f"Bearer {KEY}"}))

    return run


def _dead_milvus(ws) -> Outcome:
    import os

    from fastapi.testclient import TestClient

    from service import ServiceConfig, create_app

    from .service_http import answered

    root = ws.root / "dead-milvus"
    root.mkdir(exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    (root / "dead.milvus").write_text(f"milvus://127.0.0.1:{port}?collection=news\n")
    before = os.environ.get("BERTSCOPE_MILVUS_TIMEOUT_S")
    os.environ["BERTSCOPE_MILVUS_TIMEOUT_S"] = "1"
    try:
        client = TestClient(create_app(ServiceConfig(index_root=root)),
                            raise_server_exceptions=False)
        outcome = answered(client.post("/v1/indexes/dead/search", json={"query": "oil"}))
    finally:
        if before is None:
            os.environ.pop("BERTSCOPE_MILVUS_TIMEOUT_S")
        else:
            os.environ["BERTSCOPE_MILVUS_TIMEOUT_S"] = before
    outcome.message = outcome.message.replace(str(port), "PORT")
    return outcome


def service_cases() -> list[Case]:
    from .cases_service import ENTRY

    def row(bad, run, expect, *names, note=""):
        return Case(ENTRY, bad, run, expect, note, tuple(names), unit="HTTP")

    keys = lambda n: {f"{i:x}": 0 for i in range(n)}  # noqa: E731
    S, E = "/v1/indexes/news/search", "/v1/embeddings"
    D = "/v1/indexes/news/documents"
    return [
        row("search: a 6 MB body of 500,000 unknown keys", _body(S, lambda: keys(500_000)), 413,
            "max_json_items", "500,000", note="counted on its bytes before any parsing (it took "
            "8.5 s to refuse and stalled /health 5.6 s)"),
        row("embeddings: 500,000 unknown keys beside a valid request", _body(
            E, lambda: {"input": "x", "model": "minilm", **keys(500_000)}), 413,
            "max_json_items"),
        row("documents: one document with 500,000 metadata keys", _body(
            D, lambda: {"documents": [{"id": "a", "text": "b", "metadata": keys(500_000)}]}),
            413, "max_json_items"),
        row("search: a filter of 500,000 fields", _body(
            S, lambda: {"query": "oil", "filters": keys(500_000)}), 413, "max_json_items"),
        row("search: an array of 1,000,000 zeros", _body(
            S, lambda: {"query": "oil", "queries": [0] * 1_000_000}), 413, "max_json_items"),
        row("search: 20,000 unknown fields (under the bound)", _body(
            S, lambda: {"query": "oil", **{f"extra{i}": 0 for i in range(20_000)}}), 422,
            "unknown fields", "19,995 more", note="one error naming five (pydantic made one "
                                                  "error each)"),
        row("documents: an unknown field inside a document", _body(
            D, lambda: {"documents": [{"id": "a", "text": "b", "meta": {}}]}), 422,
            "documents.0", "'meta'"),
        row("search: an index whose Milvus server is down", _dead_milvus, 503,
            "cannot reach Milvus", note="the operator's fault, not the client's (it was 422)"),
    ]


# -- the commands' own words --------------------------------------------------------------------
def _bertscope(*argv: str) -> Callable[..., Outcome]:
    def run(ws) -> Outcome:
        from bertscope import cli as bertscope

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = bertscope.main(list(argv))
        said = (err.getvalue().strip().splitlines() or out.getvalue().strip().splitlines()
                or [""])
        text = out.getvalue() + err.getvalue()
        return Outcome(f"exit {code}", said[-1] if code else out.getvalue().strip()[:160],
                       traceback="Traceback" in text, refused=code != 0, code=code)

    return run


def _ctrl_c(ws) -> Outcome:
    """`bertscope app --lang` with a Streamlit whose wait is interrupted by Ctrl-C once."""
    from bertscope import cli as bertscope

    class Child:
        waits = 0

        def __init__(self, *args, **kwargs) -> None:
            pass

        def wait(self, timeout=None) -> int:
            Child.waits += 1
            if Child.waits == 1:
                raise KeyboardInterrupt
            return -2

        def kill(self) -> None:
            pass

    real = bertscope.subprocess.Popen
    bertscope.subprocess.Popen = Child
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            try:
                code = bertscope.main(["app", "--lang"])
            except KeyboardInterrupt:
                return Outcome("traceback", "KeyboardInterrupt escaped", traceback=True,
                               refused=True)
    finally:
        bertscope.subprocess.Popen = real
    return Outcome(f"exit {code}", "stopped: waited for Streamlit, no traceback",
                   traceback="Traceback" in err.getvalue(), refused=code != 0, code=code)


WORDS = [
    Case("bertscope", "--version", _bertscope("--version"), 0, "it printed the usage",
         ("bertscope 0.1.0",)),
    Case("bertscope", "-V", _bertscope("-V"), 0, names=("bertscope ",)),
    Case("bertscope", "an unknown command ('frob')", _bertscope("frob"), 2,
         names=("unknown command 'frob'",)),
    Case("bertscope", "no command", _bertscope(), 2, names=("name a command",)),
    Case("bertscope app", "Ctrl-C while Streamlit runs", _ctrl_c, 130,
         "exit 130 after Streamlit stops (two tracebacks before)"),
    Case("python -m indexer delete", "IDX -rf.md (an id starting with '-')",
         cli("indexer", "delete", "{W}/idx", "-rf.md"), 2,
         "argparse read it as a flag; now the message says to put it after '--'",
         ("'-rf.md' was read as a flag", "-- -rf.md")),
    Case("python -m indexer search", "IDX -oil (a query starting with '-')",
         cli("indexer", "search", "{W}/idx", "-oil"), 2, names=("-- -oil",)),
    Case("python -m training evaluate", "-x.jsonl (a file starting with '-')",
         cli("training", "evaluate", "--model", "minilm", "-x.jsonl"), 2, names=("-- -x.jsonl",)),
]
