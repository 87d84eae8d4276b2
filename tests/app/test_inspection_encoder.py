"""Pages that only look inside a model load it on torch, with no fast-backend export: an int8
export of e5 takes minutes on a CPU with VNNI, and attention maps never use it."""

from __future__ import annotations

import shutil

import pytest
from appkit import resources


def test_inspection_loads_torch_without_exporting(tiny_model_dir, tmp_path, monkeypatch):
    import encoder.fast_loading

    folder = shutil.copytree(tiny_model_dir, tmp_path / "fresh-model")

    def no_export(**_):
        raise AssertionError("an inspection page exported a fast backend")

    monkeypatch.setattr(encoder.fast_loading, "load_fast", no_export)
    enc = resources.inspection_encoder(str(folder))
    assert enc.backend == "torch"
    assert enc.inspect("a cat").attentions.shape[0] == 2  # the tiny model's two layers
    with pytest.raises(AssertionError, match="exported"):
        resources._encoder(str(folder))  # search still loads on `auto`


def test_inspection_shares_an_encoder_loaded_for_search(tiny_model_dir, monkeypatch):
    loaded = object()
    monkeypatch.setitem(resources._loaded, str(tiny_model_dir), loaded)
    assert resources.inspection_encoder(str(tiny_model_dir)) is loaded
