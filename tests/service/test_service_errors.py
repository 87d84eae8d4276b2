"""Bad requests get a JSON error naming what is wrong and the limit, with the status the issue
names: 404 listing the indexes, 400 for a name that would leave the root, 413 for size and batch
limits, 422 for k and query length and the library's own checks; never HTML, never a traceback."""

from __future__ import annotations

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
