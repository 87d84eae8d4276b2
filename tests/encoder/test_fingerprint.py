"""A model's fingerprint is stable for the same weights and changes with any weight."""

import shutil

import pytest
import torch

from encoder import load_encoder


def test_fingerprint_stable_across_loads(tiny_model_dir, tiny_encoder):
    again = load_encoder(tiny_model_dir)
    assert again.fingerprint == tiny_encoder.fingerprint
    assert len(tiny_encoder.fingerprint) == 32


def test_fingerprint_changes_with_one_weight(tiny_model_dir, tmp_path, tiny_encoder):
    copy = tmp_path / "changed"
    shutil.copytree(tiny_model_dir, copy)
    changed = load_encoder(copy, backend="torch")  # edited in memory: what encodes is torch
    with torch.no_grad():
        changed.transformer.encoder.layer[0].output.dense.bias[0] += 1e-3
    assert changed.fingerprint != tiny_encoder.fingerprint


@pytest.mark.slow
def test_bundled_fingerprints_differ(minilm, e5):
    assert minilm.fingerprint != e5.fingerprint
