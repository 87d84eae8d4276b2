"""The frameworks' own OpenAI embeddings, unchanged, with their base URL on the real server:
LangChain's `OpenAIEmbeddings` and LlamaIndex's `OpenAIEmbedding` get `Encoder.encode`'s vectors,
for one text and for a list, with the settings docs/API.md tells a user to set."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

TEXTS = ["the cat sleeps on a warm sofa", "interest rates rose", "雨", "heavy rain"]


def test_langchain_openai_embeddings(server, tiny_encoder):
    langchain_openai = pytest.importorskip("langchain_openai")
    # check_embedding_ctx_length=False: send the texts, not tiktoken ids (which a BERT model
    # cannot read, and whose BPE file tiktoken would download first)
    emb = langchain_openai.OpenAIEmbeddings(model="tiny-bert", base_url=f"{server.url}/v1",
                                            api_key="unused", check_embedding_ctx_length=False,
                                            max_retries=0)
    np.testing.assert_allclose(emb.embed_query(TEXTS[0]), tiny_encoder.encode(TEXTS[0])[0],
                               atol=1e-5)
    np.testing.assert_allclose(emb.embed_documents(TEXTS), tiny_encoder.encode(TEXTS),
                               atol=1e-5)
    # chunk_size splits a list over several requests; the rows stay in order
    two_by_two = emb.embed_documents(TEXTS, chunk_size=2)
    np.testing.assert_allclose(two_by_two, tiny_encoder.encode(TEXTS), atol=1e-5)


def test_langchain_openai_async(server, tiny_encoder):
    langchain_openai = pytest.importorskip("langchain_openai")
    import asyncio

    emb = langchain_openai.OpenAIEmbeddings(model="tiny", base_url=f"{server.url}/v1",
                                            api_key="unused", check_embedding_ctx_length=False,
                                            max_retries=0)
    # in a thread of its own: the browser tests' sync Playwright keeps an event loop running
    # on the main thread of their worker for the session, and asyncio.run refuses to nest
    with ThreadPoolExecutor(1) as pool:
        got = pool.submit(asyncio.run, emb.aembed_documents(TEXTS[:2])).result()
    np.testing.assert_allclose(got, tiny_encoder.encode(TEXTS[:2]), atol=1e-5)


def test_llamaindex_openai_embedding(server, tiny_encoder):
    li_openai = pytest.importorskip("llama_index.embeddings.openai")
    # model_name: our model, sent as is (`model` must stay one OpenAI's names validate)
    emb = li_openai.OpenAIEmbedding(model_name="tiny-bert", api_base=f"{server.url}/v1",
                                    api_key="unused", max_retries=0)
    np.testing.assert_allclose(emb.get_query_embedding(TEXTS[1]),
                               tiny_encoder.encode(TEXTS[1])[0], atol=1e-5)
    np.testing.assert_allclose(emb.get_text_embedding(TEXTS[2]),
                               tiny_encoder.encode(TEXTS[2])[0], atol=1e-5)
    np.testing.assert_allclose(emb.get_text_embedding_batch(TEXTS),
                               tiny_encoder.encode(TEXTS), atol=1e-5)


def test_llamaindex_refuses_our_name_as_model(server):
    li_openai = pytest.importorskip("llama_index.embeddings.openai")
    with pytest.raises(ValueError, match="minilm"):
        li_openai.OpenAIEmbedding(model="minilm", api_base=f"{server.url}/v1", api_key="x")


def test_token_ids_are_refused_with_the_setting_to_change(server):
    # what LangChain's OpenAIEmbeddings sends with its default check_embedding_ctx_length=True
    with server.client() as api:
        got = api.post("/v1/embeddings", json={"model": "tiny-bert", "input": [[1, 2, 3]]})
    assert got.status_code == 422
    assert "check_embedding_ctx_length=False" in got.json()["error"]["message"]
