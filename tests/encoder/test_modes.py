"""Introspection and explanations leave a shared torch model in the modes they found, module by
module: a freshly loaded SentenceTransformer is in training mode at the top (Pooling, Normalize)
and in eval in its transformer; restoring the top's mode onto the whole model turned the
transformer's dropout on (the full suite once found the shared model so: attention rows summed
to 1/0.9)."""

from __future__ import annotations

import numpy as np
import torch

from encoder import load_encoder
from encoder.modes import eval_mode


def test_eval_mode_restores_each_module_as_it_was():
    inner = torch.nn.Sequential(torch.nn.Dropout(0.1)).eval()
    outer = torch.nn.Sequential(torch.nn.Dropout(0.1), inner)  # training at the top
    with eval_mode(outer):
        assert not any(m.training for m in outer.modules())
    assert outer.training and outer[0].training
    assert not inner.training and not inner[0].training


def test_explain_on_a_fresh_model_leaves_its_transformer_in_eval(tiny_model_dir):
    enc = load_encoder(tiny_model_dir, backend="torch")  # a fresh model, not the shared one
    assert enc.model.training and not enc.transformer.training  # as sentence-transformers loads
    enc.explain("a cat sat on the mat", "a dog ran", steps=2)
    assert not enc.transformer.training
    assert not any(m.training for m in enc.transformer.modules())
    ins = enc.inspect("The apple pie was delicious.")
    assert np.allclose(ins.attentions.sum(-1), 1, atol=1e-5)
    assert not enc.transformer.training
