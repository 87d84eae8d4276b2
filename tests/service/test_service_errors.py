"""Bad requests get a JSON error naming what is wrong and the limit, with the status the issue
names: 404 listing the indexes, 400 for a name that would leave the root, 413 for size and batch
limits, 422 for k and query length and the library's own checks; never HTML, never a traceback."""

from __future__ import annotations

import json

import httpx
import pytest
from conftest import KEY

from service import Limits


@pytest.fixture(scope="module")
def api(server):
    with server.client() as client:
        yield client


def error_of(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type"}
    assert "Traceback" not in body["error"]["message"]
    return body["error"]["message"]


def test_an_unknown_index_lists_the_indexes(api):
    message = error_of(api.post("/v1/indexes/nope/search", json={"query": "x"}), 404)
    assert "'nope'" in message and "tiny" in message and "writable" in message


@pytest.mark.parametrize("name", ["a..b", ".hidden", "x" * 200, "%2E%2E"])
def test_a_name_that_could_leave_the_root_is_refused(api, name):
    response = api.post(f"/v1/indexes/{name}/search", json={"query": "x"})
    assert "invalid index name" in error_of(response, 400)


def test_an_encoded_slash_in_a_name_matches_no_route(api):
    response = api.post("/v1/indexes/..%2F..%2Fetc/search", json={"query": "x"})
    message = error_of(response, 404)
    assert "no route" in message and "index name is one folder" in message


@pytest.mark.parametrize("name", ["..", "../tiny", "/etc", "tiny/../tiny", ""])
def test_the_registry_refuses_paths_as_names(tmp_path, name):
    from service.encoders import Encoders
    from service.errors import ApiError
    from service.indexes import Indexes

    with pytest.raises(ApiError) as caught:
        Indexes(tmp_path, Encoders(None)).location(name)
    assert caught.value.status == 400


def test_limits_name_themselves(api):
    search = "/v1/indexes/tiny/search"
    assert "max_k" in error_of(api.post(search, json={"query": "x", "k": 5000}), 422)
    assert "max_query_chars" in error_of(api.post(search, json={"query": "x" * 5000}), 422)
    assert "max_inputs" in error_of(api.post(search, json={"queries": ["x"] * 300}), 413)
    embed = {"model": "tiny-bert", "input": ["x"] * 300}
    assert "max_inputs" in error_of(api.post("/v1/embeddings", json=embed), 413)
    big = {"query": "x", "max_tokens": 10**6}
    assert "max_context_tokens" in error_of(api.post("/v1/indexes/tiny/context", json=big), 422)


def test_the_library_s_checks_answer_422(api):
    search = "/v1/indexes/tiny/search"
    message = error_of(api.post(search, json={"query": "x", "filters": {"colour": "red"}}), 422)
    assert "colour" in message and "kind" in message  # names the valid fields
    assert "query" in error_of(api.post(search, json={"query": "   "}), 422)
    assert "not both" in error_of(api.post(search, json={"query": "a", "queries": ["b"]}), 422)
    assert error_of(api.post(search, json={"query": "x", "k": 0}), 422)
    assert error_of(api.post(search, json={"query": "x", "mode": "psychic"}), 422)
    assert error_of(api.post(search, json={"query": "x", "weights": [1, 2, 3],
                                           "mode": "hybrid"}), 422)
    assert error_of(api.post(search, json={"query": "x", "surprise": 1}), 422)
    assert error_of(api.post(search, content=b"{not json", headers={
        "content-type": "application/json"}), 422)
    assert "model" in error_of(api.post("/v1/embeddings", json={"model": "nope",
                                                                "input": "x"}), 404)


def test_unknown_routes_and_methods_answer_json(api):
    assert "/docs" in error_of(api.get("/v2/everything"), 404)
    assert "use POST" in error_of(api.get("/v1/indexes/tiny/search"), 405)


def test_messages_name_the_request_s_own_fields(api):
    """Not the library's parameter names (texts[0], a, doc_ids) nor a list index for a field
    that holds one text."""
    bad_json = api.post("/v1/indexes/tiny/search", content=b"{query: 1",
                        headers={"content-type": "application/json"})
    assert "not valid JSON (at character 1" in error_of(bad_json, 422)
    embed = "/v1/embeddings"
    assert error_of(api.post(embed, json={"model": "tiny-bert", "input": ["a", " "]}),
                    422).startswith("input[1] is empty")
    assert error_of(api.post(embed, json={"model": "tiny-bert", "input": " "}),
                    422).startswith("input is empty")
    long_query = {"query": "x" * 5000}
    assert error_of(api.post("/v1/indexes/tiny/search", json=long_query),
                    422).startswith("query is 5000 characters")
    explain = {"query": " ", "passage": "b", "index": "tiny"}
    assert error_of(api.post("/v1/explain", json=explain), 422).startswith("query is empty")
    delete = api.request("DELETE", "/v1/indexes/writable/documents", json={"ids": [""]},
                         headers={"Authorization": f"Bearer {KEY}"})
    assert error_of(delete, 422).startswith("ids[0] is empty")


def test_a_body_over_the_limit_is_413_declared_or_streamed(thread_server):
    url, _ = thread_server(limits=Limits(max_body_bytes=2000))
    body = b'{"query": "' + b"x" * 3000 + b'"}'
    with httpx.Client(base_url=url) as client:
        declared = client.post("/v1/indexes/tiny/search", content=body,
                               headers={"content-type": "application/json"})
        assert "max_body_bytes" in error_of(declared, 413)
        streamed = client.post("/v1/indexes/tiny/search", content=iter([body[:1500],
                                                                         body[1500:]]),
                               headers={"content-type": "application/json"})
        assert "max_body_bytes" in error_of(streamed, 413)
        small = client.post("/v1/indexes/tiny/search", json={"query": "cat", "k": 1})
        assert small.status_code == 200


def test_bodies_that_are_not_json_say_why(api):
    """A wrong or missing content type, bytes that are not UTF-8, nesting past the reader's
    depth: each answer names its cause (not "There was an error parsing the body")."""
    search = "/v1/indexes/tiny/search"
    body = b'{"query": "cat"}'
    for headers, says in (({"content-type": "text/plain"}, "'text/plain'"),
                          ({}, "no Content-Type header")):
        response = api.post(search, content=body, headers=headers)
        message = error_of(response, 415)
        assert says in message and "application/json" in message
    json_headers = {"content-type": "application/json"}
    message = error_of(api.post(search, content=b'{"query": "caf\xe9"}', headers=json_headers),
                       422)
    assert "not valid UTF-8" in message and "byte 14" in message
    deep = b'{"query": "cat", "filters": {"kind": ' + b"[" * 5000 + b"]" * 5000 + b"}}"
    assert "nests" in error_of(api.post(search, content=deep, headers=json_headers), 422)
    deep_metadata = {"documents": [{"id": "deep", "text": "a deep one",
                                    "metadata": {"tree": json.loads("[" * 300 + "]" * 300)}}]}
    message = error_of(api.post("/v1/indexes/writable/documents", json=deep_metadata,
                                headers={"Authorization": f"Bearer {KEY}"}), 422)
    assert message.startswith("documents[0].metadata.tree[0]") and "32 levels" in message
    lists = {"model": "tiny-bert", "input": [["a", "b"]]}
    message = error_of(api.post("/v1/embeddings", json=lists), 422)
    assert "input[0] is a list" in message and "token ids" not in message


def test_text_that_is_not_unicode_is_refused_naming_its_field(api):
    """A lone surrogate (JSON "\\ud800") in a query, a document, an embedding input, a key."""
    def sent(path: str, raw: str, **headers):
        return api.post(path, content=raw.encode(),
                        headers={"content-type": "application/json", **headers})

    cases = {
        ("/v1/indexes/tiny/search", '{"query": "cat \\ud800"}'): "query holds a lone surrogate",
        ("/v1/indexes/tiny/search", '{"queries": ["ok", "\\udc00"]}'): "queries[1] holds",
        ("/v1/embeddings", '{"model": "tiny-bert", "input": ["\\ud83d"]}'): "input[0] holds",
        ("/v1/indexes/writable/documents", '{"documents": [{"id": "s1", "text": "a \\ud800 b"}]}'):
            "documents[0].text (id 's1') holds",
        ("/v1/indexes/writable/documents",
         '{"documents": [{"id": "s1", "text": "a", "metadata": {"\\ud800": 1}}]}'):
            "a key of documents[0].metadata",
    }
    for (path, raw), says in cases.items():
        message = error_of(sent(path, raw, Authorization=f"Bearer {KEY}"), 422)
        assert says in message and ("\\ud8" in message or "\\udc" in message), message
    fine = sent("/v1/indexes/tiny/search", '{"query": "cat \\ud83d\\ude00"}')  # a real pair
    assert fine.status_code == 200, fine.text


def test_numbers_are_what_they_say(api):
    """`k: true` is not k=1 (the library refuses it too), weights with a dense search are not
    silently dropped, an integer past 64 bits in a filter names its field."""
    search = "/v1/indexes/tiny/search"
    assert "k:" in error_of(api.post(search, json={"query": "cat", "k": True}), 422)
    assert api.post(search, json={"query": "cat", "k": 2.0}).status_code == 200
    message = error_of(api.post(search, json={"query": "cat", "weights": [1, 1]}), 422)
    assert "weights" in message and "hybrid" in message and "dense" in message
    message = error_of(api.post(search, json={"query": "cat", "mode": "bm25",
                                              "fusion": "rrf"}), 422)
    assert "fusion" in message and "hybrid" in message
    message = error_of(api.post(search, json={"query": "cat",
                                              "filters": {"year": 2 ** 70}}), 422)
    assert "year" in message
