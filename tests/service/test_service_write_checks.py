"""A write the library refuses (it would break later reads: a field's type changed, an integer
beyond 64 bits, an id twice, a text over the limit, a lone surrogate, a reserved metadata name
such as `_layout` or `page`) is a 422 naming the
document and the field over HTTP too, and searches and filters go on answering as before."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import KEY

from indexer import SemanticIndex

DOCS = "/v1/indexes/w/documents"
SEARCH = "/v1/indexes/w/search"


@pytest.fixture
def root(tmp_path, _tiny_built):
    shutil.copytree(_tiny_built, tmp_path / "root" / "w")
    return tmp_path / "root"


@pytest.fixture
def client(root):
    from fastapi.testclient import TestClient

    from service import ServiceConfig, create_app

    app = create_app(ServiceConfig(index_root=root, api_key=KEY))
    with TestClient(app, headers={"Authorization": f"Bearer {KEY}"}) as test_client:
        yield test_client


@pytest.mark.parametrize("documents,said", [
    ([{"id": "s1", "text": "x", "metadata": {"year": "soon"}}], ["'s1'", "'year'", "holds int"]),
    ([{"id": "s2", "text": "x", "metadata": {"year": 2**64}}], ["'s2'", "'year'", "64 bits"]),
    ([{"id": "s3", "text": "one"}, {"id": "s3", "text": "two"}], ["'s3'", "documents[1]"]),
    ([{"id": "s4", "text": "a" * 100_001}], ["'s4'", "100,000"]),
    ([{"id": "s5", "text": "x \ud800"}], ["documents[0].text", "lone surrogate"]),
    # reserved names (issue 52): a crafted `_layout` was accepted and broke every search hitting
    # it (500); `page` or `source` would be cited as a file's
    ([{"id": "s6", "text": "rain", "metadata": {"_layout": {"spans": [[0, 4, "x"]]}}}],
     ["'s6'", "'_layout'", "BERTScope writes itself", "rename"]),
    ([{"id": "s7", "text": "rain", "metadata": {"page": 7}}], ["'s7'", "'page'"]),
    ([{"id": "s8", "text": "rain", "metadata": {"source": "a.pdf", "sha256": "ab"}}],
     ["'s8'", "'source'"]),
])
def test_a_write_that_would_break_reads_is_a_422(client, root, documents, said):
    def year_filter():
        got = client.post(SEARCH, json={"query": "rain", "k": 50,
                                        "filters": {"year": {"gte": 2021}}})
        assert got.status_code == 200, got.text
        return sorted(h["doc_id"] for h in got.json()["hits"])

    before = year_filter()
    refused = client.post(DOCS, content=json.dumps({"documents": documents}),  # \ud800 escaped
                          headers={"content-type": "application/json"})
    assert refused.status_code == 422, refused.text
    message = refused.json()["error"]["message"]
    assert all(word in message for word in said), message
    assert year_filter() == before
    assert SemanticIndex.open(root / "w").field_types()["year"] == "int"
