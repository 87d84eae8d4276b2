"""The real server (`python -m service`) answers as the library does: health, the index list,
search (one query and a batch, each mode, filters, highlights, timings), the RAG context, the
OpenAPI docs; one log line per request."""

from __future__ import annotations

import re
import uuid

import pytest
from conftest import SUBJECTS

from indexer import SemanticIndex
from rag.context import token_counter


@pytest.fixture(scope="module")
def api(server):
    with server.client() as client:
        yield client


@pytest.fixture(scope="module")
def library(server, tiny_encoder):
    return SemanticIndex.open(server.root / "tiny", encoder=tiny_encoder)


def test_health_and_the_index_list(api):
    assert api.get("/health").json()["status"] == "ok"
    listed = {x["name"]: x for x in api.get("/v1/indexes").json()["data"]}
    assert set(listed) == {"tiny", "writable"}
    tiny = listed["tiny"]
    assert (tiny["model"], tiny["preset"], tiny["documents"]) == ("tiny-bert", "flat", 20)
    assert tiny["chunks"] >= 20 and tiny["backend"]


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_search_gives_the_library_s_hits(api, library, mode):
    query = SUBJECTS[2]
    body = api.post("/v1/indexes/tiny/search", json={"query": query, "k": 5, "mode": mode})
    assert body.status_code == 200, body.text
    got = body.json()
    want = library.search(query, 5, mode={"bm25": "lexical"}.get(mode, mode))
    assert [h["score"] for h in got["hits"]] == pytest.approx([h.score for h in want], abs=1e-5)
    assert [h["doc_id"] for h in got["hits"]] == [h.doc_id for h in want], (got, want)
    for hit in got["hits"]:
        doc = library.document(hit["doc_id"])
        assert doc.text[hit["start"]:hit["end"]] == hit["text"]
        assert hit["metadata"] == doc.metadata
    t = got["timings"]
    assert 0 <= t["encode_ms"] <= t["total_ms"] and t["search_ms"] >= 0
    if mode == "bm25":
        assert t["encode_ms"] == 0  # BM25 encodes nothing
        assert all(h["metadata"]["kind"] == "sport" for h in got["hits"][:4])


def test_a_batch_of_queries_answers_each_as_alone(api):
    queries = [SUBJECTS[0], SUBJECTS[3]]
    batch = api.post("/v1/indexes/tiny/search", json={"queries": queries, "k": 3}).json()
    assert len(batch["results"]) == 2
    for query, result in zip(queries, batch["results"], strict=True):
        alone = api.post("/v1/indexes/tiny/search", json={"query": query, "k": 3}).json()
        assert [h["doc_id"] for h in result["hits"]] == [h["doc_id"] for h in alone["hits"]]


def test_filters_weights_and_highlights(api):
    body = {"query": "rain flooded roads", "k": 4, "mode": "hybrid", "weights": [0.2, 0.8],
            "filters": {"year": {"gte": 2021}}, "highlight": True}
    hits = api.post("/v1/indexes/tiny/search", json=body).json()["hits"]
    assert hits and all(h["metadata"]["year"] >= 2021 for h in hits)
    weather = [h for h in hits if h["metadata"]["kind"] == "weather"]
    assert weather, hits
    for hit in weather:
        words = {hit["text"][s:e].lower() for s, e in hit["highlights"]}
        assert words == {"rain", "flooded", "roads"}
    other = api.post("/v1/indexes/tiny/search", json={**body, "filters": {"kind": "pets"}})
    assert {h["metadata"]["kind"] for h in other.json()["hits"]} == {"pets"}


def test_context_packs_into_the_budget_with_citations(api, tiny_encoder):
    body = {"query": SUBJECTS[1], "max_tokens": 60, "k": 20, "max_chunks_per_doc": 1}
    got = api.post("/v1/indexes/tiny/context", json=body).json()
    chunks = got["chunks"]
    assert chunks and got["tokens"] <= 60
    assert got["tokens"] == token_counter(tiny_encoder)(got["prompt"])
    assert [c["citation"] for c in chunks] == list(range(1, len(chunks) + 1))
    assert [c["rank"] for c in chunks] == sorted(c["rank"] for c in chunks)
    assert len({c["doc_id"] for c in chunks}) == len(chunks)  # one per document
    for c in chunks:
        assert f"[{c['citation']}] {c['title']}\n{c['text']}" in got["prompt"]
        assert c["source"]
    roomy = api.post("/v1/indexes/tiny/context", json={**body, "max_tokens": 2000}).json()
    assert len(roomy["chunks"]) > len(chunks) and roomy["skipped"]["budget"] == 0


def test_openapi_docs_list_every_endpoint(api):
    assert "swagger" in api.get("/docs").text.lower()
    paths = api.get("/openapi.json").json()["paths"]
    for path in ("/health", "/v1/indexes", "/v1/embeddings", "/v1/indexes/{name}/search",
                 "/v1/indexes/{name}/context", "/v1/indexes/{name}/documents", "/v1/explain"):
        assert path in paths


def test_explain_a_query_and_a_passage(api):
    body = {"query": "cat on a sofa", "passage": SUBJECTS[0], "index": "tiny"}
    got = api.post("/v1/explain", json=body)
    assert got.status_code == 200, got.text
    e = got.json()
    assert e["method"] == "occlusion" and -1 <= e["score"] <= 1 and e["error"] is None
    assert e["query_words"] and all(body["query"][w["start"]:w["end"]] == w["word"]
                                    for w in e["query_words"])
    assert len(e["word_matrix"]) == len(e["query_words"])


def test_one_log_line_per_request(api, server):
    path = f"/nothing-{uuid.uuid4().hex}"
    assert api.get(path).status_code == 404
    assert api.post("/v1/indexes/tiny/search", json={"query": "x", "k": 1}).status_code == 200
    lines = [x for x in server.log_text().splitlines() if path in x]
    assert len(lines) == 1 and re.search(r'"GET /nothing-\w+" 404 [\d.]+ms', lines[0])
    assert "Traceback" not in server.log_text()
