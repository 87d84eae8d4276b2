"""/v1/embeddings is OpenAI's: the official `openai` client, pointed at the server, gets the
vectors `Encoder.encode` gives in this process, as floats and as base64, with token usage."""

from __future__ import annotations

import base64

import numpy as np
import pytest

TEXTS = ["the cat sleeps on a warm sofa", "interest rates rose", "雨"]


@pytest.fixture(scope="module")
def openai_client(server):
    openai = pytest.importorskip("openai")
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0)


@pytest.mark.parametrize("encoding_format", ["float", "base64", None])
def test_the_openai_client_gets_encoder_encode_s_vectors(openai_client, tiny_encoder,
                                                         encoding_format):
    extra = {"encoding_format": encoding_format} if encoding_format else {}
    got = openai_client.embeddings.create(model="tiny-bert", input=TEXTS, **extra)
    rows = [d.embedding for d in sorted(got.data, key=lambda d: d.index)]
    if encoding_format == "base64":  # asked for by name, the client hands the string over
        rows = [np.frombuffer(base64.b64decode(r), dtype="<f4") for r in rows]
    vectors = np.array(rows)
    assert vectors.shape == (3, tiny_encoder.dim)
    np.testing.assert_allclose(vectors, tiny_encoder.encode(TEXTS), atol=1e-5)
    tokens = sum(tiny_encoder.token_lengths(TEXTS))
    assert got.usage.prompt_tokens == got.usage.total_tokens == tokens
    assert got.model == "tiny-bert"


def test_one_string_and_the_index_name_as_model(openai_client, tiny_encoder):
    got = openai_client.embeddings.create(model="tiny", input=TEXTS[1])
    np.testing.assert_allclose(got.data[0].embedding, tiny_encoder.encode(TEXTS[1])[0],
                               atol=1e-5)


def test_the_model_list_and_the_prompt_extension(server):
    with server.client() as api:
        models = {m["id"]: m for m in api.get("/v1/models").json()["data"]}
        assert models["tiny-bert"]["indexes"] == ["tiny", "writable"]
        assert {"minilm", "e5-multilingual"} <= set(models)
        plain = api.post("/v1/embeddings", json={"model": "tiny-bert", "input": ["x y"]})
        query = api.post("/v1/embeddings", json={"model": "tiny-bert", "input": ["x y"],
                                                 "input_type": "query"})
        assert plain.status_code == query.status_code == 200
        # the tiny model has no prompts, so the same vector (E5 puts "query: " first)
        assert plain.json()["data"] == query.json()["data"]
        refused = api.post("/v1/embeddings", json={"model": "tiny-bert", "input": ["x"],
                                                   "input_type": "document"})
        assert refused.status_code == 422
        wrong = api.post("/v1/embeddings", json={"model": "tiny-bert", "input": "x",
                                                 "dimensions": 7})
        assert wrong.status_code == 422 and "dimensions" in wrong.json()["error"]["message"]
