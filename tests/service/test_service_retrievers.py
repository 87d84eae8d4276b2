"""The remote retrievers (LangChain, LlamaIndex) and `ServiceClient` against the real server give
what the same calls give in this process."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SUBJECTS

from indexer import SemanticIndex
from rag.client import ServiceClient, ServiceError
from rag.sources import LocalIndex, RemoteIndex


@pytest.fixture(scope="module")
def pair(server, tiny_encoder):
    local = LocalIndex(SemanticIndex.open(server.root / "tiny", encoder=tiny_encoder))
    return local, RemoteIndex(server.url, "tiny")


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_remote_hits_are_local_hits(pair, mode):
    local, remote = pair
    want = local.search(SUBJECTS[4], 6, mode=mode, filter={"year": 2021})
    got = remote.search(SUBJECTS[4], 6, mode=mode, filter={"year": 2021})
    assert [(h.doc_id, h.chunk_id, h.text) for h in got] == \
        [(h.doc_id, h.chunk_id, h.text) for h in want]
    np.testing.assert_allclose([h.score for h in got], [h.score for h in want], atol=1e-5)


def test_remote_framework_retrievers_and_embeddings(pair, server):
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from rag import langchain, llamaindex

    local, _ = pair
    want = [h.doc_id for h in local.search(SUBJECTS[3], 4, mode="hybrid")]
    lc = langchain.BertscopeRetriever.from_service(server.url, "tiny", k=4).invoke(SUBJECTS[3])
    li = llamaindex.BertscopeRetriever.from_service(server.url, "tiny", k=4).retrieve(SUBJECTS[3])
    assert [d.metadata["doc_id"] for d in lc] == [n.node.metadata["doc_id"] for n in li] == want
    remote_vec = langchain.BertscopeEmbeddings.from_service(server.url, "tiny").embed_query("x")
    np.testing.assert_allclose(remote_vec, local.embed(["x"], "query")[0], atol=1e-5)
    li_vec = llamaindex.BertscopeEmbedding.from_service(server.url, "tiny") \
        .get_text_embedding("y")
    np.testing.assert_allclose(li_vec, local.embed(["y"], "passage")[0], atol=1e-5)


def test_the_client_raises_the_service_s_error(server):
    client = ServiceClient(server.url)
    with pytest.raises(ServiceError) as caught:
        client.search("nope", "x")
    assert caught.value.status == 404 and "tiny" in caught.value.message
    assert client.context("tiny", SUBJECTS[0], max_tokens=40)["tokens"] <= 40
    with pytest.raises(ServiceError, match="401"):
        client.delete("tiny", ["doc00"])
    client.close()
