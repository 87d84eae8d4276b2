"""The spinner while a model loads says what its first use costs: the export `auto` makes, with
its estimate, before the minutes it takes (an e5 build once sat in an int8 export unannounced)."""

from __future__ import annotations

import shutil

from appkit.resources import loading_message


def test_the_first_use_names_the_export_and_its_time(tmp_path, tiny_model_dir, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("BERTSCOPE_CPU_FLAGS", "avx avx2")  # auto: onnx first
    model = str(shutil.copytree(tiny_model_dir, tmp_path / "model"))
    said = loading_message(model)
    assert "its first use on this machine exports it to onnx, about" in said, said
    assert "s on 2 cores" in said
    # pages that only look inside the model load torch alone: no export to announce
    assert "exports" not in loading_message(model, inspect_only=True)
