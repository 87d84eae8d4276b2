"""The bundled encoders on every fast backend: offline, faithful to torch fp32, and still
inspectable (eager attention from the lazily loaded torch model) when an int8 export encodes.

Exports are made once into a scratch `$BERTSCOPE_HOME` shared by the module (minilm: about a
minute for all four). e5's fp32 ONNX export is tested in test_backends_e5.py."""

from __future__ import annotations

import numpy as np
import pytest
from backend_home import module_home

from encoder import BACKENDS, FIDELITY_GATE, load_encoder

pytestmark = pytest.mark.slow

FAST = [b for b in BACKENDS if b != "torch"]
ENGLISH = ["A man is playing a guitar.", "Someone is strumming a guitar.",
           "The stock market fell sharply on Monday after the announcement.",
           "How do I reset my password?", "The giraffe is the tallest animal."]
CHINESE = ["一个男人在弹吉他。", "花呗可以提前还款吗？", "苹果发布了新手机", "我吃了一个苹果"]


home = module_home("bundled-backend-home")


@pytest.fixture(scope="module")
def minilm_torch(home):
    return load_encoder("minilm", backend="torch")


def min_cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.min(np.sum(a * b, axis=1)))


@pytest.mark.parametrize("backend", FAST)
def test_minilm_every_backend_agrees_with_torch(home, minilm_torch, backend):
    load_encoder("minilm", backend=backend)  # exported on first use (the torch model loads)
    enc = load_encoder("minilm", backend=backend)
    # int8 may miss the gate on its worst calibration text (minilm onnx-int8 on AVX2: 0.9846;
    # `auto` then skips it) but must still agree on ordinary sentences
    assert enc.backend == backend and enc.fidelity >= (0.98 if "int8" in backend else
                                                       FIDELITY_GATE), enc.fidelity
    assert enc.fingerprint == minilm_torch.fingerprint
    assert min_cosine(enc.encode(ENGLISH), minilm_torch.encode(ENGLISH)) >= FIDELITY_GATE
    a, s, u = enc.encode(ENGLISH[:3])
    assert float(a @ s) > float(a @ u) + 0.05  # still a sentence encoder
    assert not enc.torch_loaded  # encode-only: the torch weights stayed on disk


def test_minilm_inspect_on_int8_uses_eager_torch_attention(home):
    enc = load_encoder("minilm", backend="openvino-int8")
    ins = enc.inspect("I ate an apple.", "Apple sells phones.")
    t = len(ins.tokens)
    assert ins.attentions.shape == (6, 12, t, t)
    assert np.allclose(ins.attentions.sum(-1), 1, atol=1e-4)
    assert enc.backend == "openvino-int8" and enc.torch_loaded


def test_minilm_int8_encodes_32_token_texts_faithfully(home, minilm_torch):
    """OpenVINO's int8 kernels get exactly 32 tokens wrong (cosine 0.75 to torch, runtime.py):
    shape buckets never pad to 32, so such a text, alone or in a batch, stays faithful."""
    enc = load_encoder("minilm", backend="openvino-int8")
    words = "the market fell sharply on monday after the announcement of new rules".split()
    texts = [" ".join(words[i % len(words)] for i in range(n)) for n in range(20, 34)]
    counts = enc.token_lengths(texts)
    assert 32 in counts
    ref = minilm_torch.encode(texts)
    alone = np.concatenate([enc.encode([t]) for t in texts])
    # measured 0.9914 both ways, 0.9365 with 32 tokens run (int8's bar here: 0.98, as above)
    assert min_cosine(alone, ref) >= 0.98
    assert min_cosine(enc.encode(texts, batch_size=4), ref) >= 0.98
