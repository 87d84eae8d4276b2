"""e5-multilingual on fp32 ONNX agrees with torch in English and Chinese.

Its export goes to the session's `$BERTSCOPE_HOME`, not a scratch one: the app and index tests
export the same model there, and whichever test comes first pays the ~1 minute once (int8 e5
takes minutes and is not exported here)."""

from __future__ import annotations

import pytest
from test_backends_bundled import CHINESE, ENGLISH, min_cosine

from encoder import FIDELITY_GATE, load_encoder

pytestmark = pytest.mark.slow


def test_e5_onnx_agrees_with_torch_in_english_and_chinese():
    reference = load_encoder("e5-multilingual", backend="torch")
    enc = load_encoder("e5-multilingual", backend="onnx")
    assert enc.backend == "onnx" and enc.fidelity >= FIDELITY_GATE
    assert enc.prompt_prefix("query") == "query: "
    for texts in (ENGLISH, CHINESE):
        for prompt in ("query", "passage"):
            got = enc.encode(texts, prompt=prompt)
            assert min_cosine(got, reference.encode(texts, prompt=prompt)) >= FIDELITY_GATE
    assert enc.info.to_dict() == reference.info.to_dict()
