"""The embeddings extension `input_type` adds the model's own prompt (E5's "query: " /
"passage: "): shown on a tiny model saved with such prompts, through the app in-process."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

PROMPTS = {"query": "query: ", "passage": "passage: "}


@pytest.fixture(scope="module")
def prompted(tmp_path_factory, tiny_model_dir):
    from sentence_transformers import SentenceTransformer

    from encoder import load_encoder
    from indexer import build_index

    folder = tmp_path_factory.mktemp("prompted")
    model = SentenceTransformer(str(tiny_model_dir), device="cpu")
    model.prompts = dict(PROMPTS)
    model.save(str(folder / "e5ish"))
    enc = load_encoder(folder / "e5ish", backend="torch")
    build_index([{"id": "a", "text": "a cat"}, {"id": "b", "text": "rain"}],
                folder / "root" / "idx", model=enc, preset="flat")
    return folder / "root", enc


def test_input_type_adds_the_model_s_prompt(prompted):
    from service import ServiceConfig, create_app

    root, enc = prompted
    assert {k: enc.prompts[k] for k in PROMPTS} == PROMPTS
    client = TestClient(create_app(ServiceConfig(index_root=root)))

    def embed(input_type):
        body = {"model": "e5ish", "input": ["a cat on a mat"]}
        if input_type:
            body["input_type"] = input_type
        got = client.post("/v1/embeddings", json=body)
        assert got.status_code == 200, got.text
        return np.array(got.json()["data"][0]["embedding"]), got.json()["usage"]["prompt_tokens"]

    plain, n_plain = embed(None)
    query, n_query = embed("query")
    passage, _ = embed("passage")
    np.testing.assert_allclose(plain, enc.encode(["a cat on a mat"])[0], atol=1e-5)
    np.testing.assert_allclose(query, enc.encode(["a cat on a mat"], prompt="query")[0],
                               atol=1e-5)
    np.testing.assert_allclose(passage, enc.encode(["a cat on a mat"], prompt="passage")[0],
                               atol=1e-5)
    assert not np.allclose(plain, query) and not np.allclose(query, passage)
    assert n_query == n_plain + len(enc.tokenizer.tokenize("query: "))  # the prompt's tokens
