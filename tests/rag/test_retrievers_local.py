"""The LangChain and LlamaIndex retrievers and embeddings over an index in this process give the
library's hits and the encoder's vectors, through the real framework classes."""

from __future__ import annotations

import numpy as np
import pytest

from indexer import SemanticIndex, build_index

DOCS = [{"id": f"d{i}", "text": t, "metadata": {"n": i}} for i, t in enumerate(
    ["cats purr on the sofa", "stocks fell sharply", "the team won the cup",
     "rain all week", "a cat and a dog"])]


@pytest.fixture(scope="module")
def index(tmp_path_factory, tiny_encoder) -> SemanticIndex:
    out = tmp_path_factory.mktemp("rag") / "idx"
    build_index(DOCS, out, model=tiny_encoder, preset="flat")
    return SemanticIndex.open(out, encoder=tiny_encoder)


def test_langchain_retriever_and_embeddings(index, tiny_encoder):
    pytest.importorskip("langchain_core")
    from langchain_core.retrievers import BaseRetriever

    from rag.langchain import BertscopeEmbeddings, BertscopeRetriever

    retriever = BertscopeRetriever.from_index(index, k=3, mode="bm25")
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("cat")
    want = index.search("cat", 3, mode="lexical", per_chunk=True)
    assert [d.metadata["doc_id"] for d in docs] == [h.doc_id for h in want]
    assert {d.metadata["doc_id"] for d in docs} == {"d0", "d4"}  # cat, cats: one stem
    by_id = {d.metadata["doc_id"]: d for d in docs}
    assert by_id["d4"].page_content == "a cat and a dog" and by_id["d4"].metadata["n"] == 4
    filtered = BertscopeRetriever.from_index(index, k=5, mode="dense", filter={"n": {"lt": 2}})
    assert {d.metadata["doc_id"] for d in filtered.invoke("anything")} == {"d0", "d1"}
    emb = BertscopeEmbeddings(index)
    np.testing.assert_allclose(emb.embed_query("rain"), tiny_encoder.encode(["rain"],
                                                                            prompt="query")[0],
                               atol=1e-6)
    assert np.asarray(emb.embed_documents(["a", "b c"])).shape == (2, tiny_encoder.dim)


def test_llamaindex_retriever_and_embedding(index, tiny_encoder):
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.embeddings.base import BaseEmbedding

    from rag.llamaindex import BertscopeEmbedding, BertscopeRetriever

    nodes = BertscopeRetriever(index, k=2, mode="hybrid").retrieve("stocks fell")
    want = index.search("stocks fell", 2, mode="hybrid", per_chunk=True)
    assert [n.node.metadata["doc_id"] for n in nodes] == [h.doc_id for h in want]
    assert nodes[0].score == pytest.approx(want[0].score)
    assert nodes[0].node.get_content() == want[0].text
    emb = BertscopeEmbedding(index)
    assert isinstance(emb, BaseEmbedding)
    np.testing.assert_allclose(emb.get_query_embedding("rain"),
                               tiny_encoder.encode(["rain"], prompt="query")[0], atol=1e-6)
    assert len(emb.get_text_embedding_batch(["x", "y z"])) == 2
