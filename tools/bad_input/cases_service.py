"""Bad requests to the HTTP retrieval service (`python -m service`): the app, in-process through
an httpx ASGI transport (FastAPI's TestClient), over W/service/news (a copy of W/idx), with an API
key so the document routes are on. A 500, a body that is not the JSON error shape, or a
traceback anywhere in the answer marks the row."""

from __future__ import annotations

from . import cases_service_odd
from .probe import Case
from .service_http import request

S = "/v1/indexes/news/search"
C = "/v1/indexes/news/context"
D = "/v1/indexes/news/documents"
E = "/v1/embeddings"
X = "/v1/explain"
Q = {"query": "football"}
DOC = {"id": "n1", "text": "a new story"}


ENTRY = "service (HTTP)"


def _cases(route: str, rows: list[tuple]) -> list[Case]:
    """(bad, runner, the expected status or outcome, *words the message must name)."""
    return [Case(ENTRY, f"{route}: {bad}", runner, expect, names=tuple(names), unit="HTTP")
            for bad, runner, expect, *names in rows]


SERVICE = [
    *_cases("search", [
        ("an index that is not there", request("POST", "/v1/indexes/nope/search", Q), 404,
         "'nope'", "news"),
        ("a name with '..'", request("POST", "/v1/indexes/a..b/search", Q), 400, "a..b"),
        ("an encoded '../' in the name", request("POST", "/v1/indexes/..%2Fx/search", Q), 404,
         "index name"),
        ("an empty query", request("POST", S, {"query": ""}), 422, "query"),
        ("a query of spaces", request("POST", S, {"query": "   "}), 422, "query"),
        ("a zero-width query", request("POST", S, {"query": "\u200b\u200b"}), 422, "query"),
        ("query and queries both", request("POST", S, {"query": "a", "queries": ["b"]}), 422,
         "`query`", "`queries`"),
        ("neither query nor queries", request("POST", S, {"k": 3}), 422, "`query`",
         "`queries`"),
        ("queries: []", request("POST", S, {"queries": []}), 422, "queries"),
        ("300 queries (max_inputs 256)", request("POST", S, {"queries": ["a"] * 300}), 413,
         "256", "max_inputs"),
        ("a 5,000-character query", request("POST", S, {"query": "word " * 1000}), 422,
         "query is 5000", "4096", "max_query_chars"),
        ("k = 0", request("POST", S, {**Q, "k": 0}), 422, "k:"),
        ("k = 10^9", request("POST", S, {**Q, "k": 10**9}), 422, "1000", "max_k"),
        ("k = 'five'", request("POST", S, {**Q, "k": "five"}), 422, "k:"),
        ("mode 'psychic'", request("POST", S, {**Q, "mode": "psychic"}), 422, "mode", "hybrid"),
        ("three weights", request("POST", S, {**Q, "mode": "hybrid", "weights": [1, 2, 3]}),
         422, "weights"),
        ("a negative weight", request("POST", S, {**Q, "mode": "hybrid", "weights": [-1, 1]}),
         422, "weight", ">= 0"),
        ("a filter on a field the index lacks", request("POST", S, {**Q, "filters": {"x": 1}}),
         422, "'x'", "category"),
        ("a filter value NaN", request("POST", S, raw=b'{"query": "a", "filters": '
                                                      b'{"category": NaN}}'), 422, "category"),
        ("a misspelt field ('qurey')", request("POST", S, {"qurey": "a"}), 422, "qurey"),
        ("a body that is not JSON", request("POST", S, raw=b"{query: football"), 422,
         "not valid JSON"),
        ("a JSON list as the body", request("POST", S, ["football"]), 422, "body"),
        ("a 9 MiB body (max_body_bytes 8 MiB)",
         request("POST", S, raw=b'{"query": "' + b"a" * (9 << 20) + b'"}'), 413,
         "max_body_bytes"),
        ("a Chinese and emoji query", request("POST", S, {"query": "苹果 🍎 football"}),
         "accepted"),
        ("GET instead of POST", request("GET", S), 405, "POST"),
    ]),
    *_cases("context", [
        ("max_tokens 0", request("POST", C, {**Q, "max_tokens": 0}), 422, "max_tokens"),
        ("max_tokens 10^7", request("POST", C, {**Q, "max_tokens": 10**7}), 422, "32768",
         "max_context_tokens"),
        ("max_chunks_per_doc 0", request("POST", C, {**Q, "max_chunks_per_doc": 0}), 422,
         "max_chunks_per_doc"),
        ("no query", request("POST", C, {"max_tokens": 100}), 422, "query"),
        ("a budget smaller than any chunk", request("POST", C, {**Q, "max_tokens": 1}),
         "accepted"),
    ]),
    *_cases("embeddings", [
        ("a model that is not there", request("POST", E, {"model": "gpt-9", "input": "a"}), 404,
         "gpt-9", "minilm"),
        ("input: []", request("POST", E, {"model": "minilm", "input": []}), 422, "input"),
        ("input: ['']", request("POST", E, {"model": "minilm", "input": [""]}), 422,
         "input[0]"),
        ("input: ' ' (one string)", request("POST", E, {"model": "minilm", "input": " "}), 422,
         "input is empty"),
        ("token ids instead of text", request("POST", E, {"model": "minilm",
                                                          "input": [[101, 2054]]}), 422,
         "check_embedding_ctx_length=False"),
        ("300 inputs (max_inputs 256)", request("POST", E, {"model": "minilm",
                                                            "input": ["a"] * 300}), 413,
         "256", "max_inputs"),
        ("a 200,000-character input", request("POST", E, {"model": "minilm",
                                                          "input": "a" * 200_000}), 422,
         "input is 200000", "100000", "max_text_chars"),
        ("dimensions 7", request("POST", E, {"model": "minilm", "input": "a",
                                             "dimensions": 7}), 422, "dimensions", "384"),
        ("encoding_format 'binary'", request("POST", E, {"model": "minilm", "input": "a",
                                                         "encoding_format": "binary"}), 422,
         "encoding_format", "base64"),
        ("input_type 'document'", request("POST", E, {"model": "minilm", "input": "a",
                                                      "input_type": "document"}), 422,
         "input_type", "passage"),
        ("an unknown field ('user')", request("POST", E, {"model": "minilm", "input": "a",
                                                          "user": "u1"}), "accepted"),
    ]),
    *_cases("documents", [
        ("no Authorization header", request("POST", D, {"documents": [DOC]}, key=None), 401,
         "Authorization: Bearer"),
        ("a wrong key", request("POST", D, {"documents": [DOC]}, key="wrong-key-000000"), 401,
         "wrong"),
        ("documents: []", request("POST", D, {"documents": []}), "accepted"),
        ("a document with empty text", request("POST", D, {"documents": [{"id": "e",
                                                                          "text": ""}]}), 422,
         "documents[0]['text']"),
        ("an empty id", request("POST", D, {"documents": [{"id": "", "text": "x"}]}), 422,
         "documents[0]['id']"),
        ("a document without an id", request("POST", D, {"documents": [{"text": "x"}]}), 422,
         "documents.0.id"),
        ("metadata holding a list (JSON metadata: kept)", request("POST", D, {"documents": [
            {**DOC, "metadata": {"tags": ["a", "b"]}}]}), "accepted"),
        ("replace false on an existing id", request("POST", D, {"replace": False, "documents": [
            {"id": "oil-1", "text": "again"}]}), 409, "oil-1", "replace"),
        ("1,001 documents (max_documents 1000)", request("POST", D, {"documents": [
            {"id": f"m{i}", "text": "x"} for i in range(1001)]}), 413, "1000", "max_documents"),
        ("DELETE ids: [] ", request("DELETE", D, {"ids": []}), "accepted"),
        ("DELETE ids that are not there", request("DELETE", D, {"ids": ["nope"]}), "accepted"),
        ("DELETE an empty id", request("DELETE", D, {"ids": [""]}), 422, "ids[0]"),
    ]),
    *_cases("explain", [
        ("neither index nor model", request("POST", X, {"query": "a", "passage": "b"}), 422,
         "`index`", "`model`"),
        ("both index and model", request("POST", X, {"query": "a", "passage": "b",
                                                     "index": "news", "model": "minilm"}), 422,
         "`index`", "`model`"),
        ("steps 0", request("POST", X, {"query": "a", "passage": "b", "index": "news",
                                        "method": "integrated-jacobians", "steps": 0}), 422,
         "steps"),
        ("a 3,000-character passage", request("POST", X, {"query": "a", "passage": "b " * 1500,
                                                          "index": "news"}), 422,
         "passage is 3000", "2000"),
        ("an empty query", request("POST", X, {"query": "", "passage": "b",
                                               "index": "news"}), 422, "query is empty"),
        ("a passage of spaces", request("POST", X, {"query": "a", "passage": "  ",
                                                    "index": "news"}), 422, "passage is empty"),
    ]),
    *_cases("any route", [
        ("a route that is not there", request("GET", "/v1/nothing"), 404, "/v1/nothing"),
    ]),
    *cases_service_odd.cases(_cases, request),
]
