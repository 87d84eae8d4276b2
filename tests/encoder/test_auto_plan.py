"""`auto_plan`: what `auto` would encode a model with, read from the exports on disk without
loading anything (the Models page shows it for models not loaded yet)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from backend_stub import BAD, GOOD, export_on_disk

from encoder.auto_plan import AutoPlan, auto_plan

AVX2, VNNI = frozenset({"avx2"}), frozenset({"avx2", "avx512_vnni"})


@pytest.fixture
def model(tmp_path, tiny_model_dir, monkeypatch):
    """A copy of the tiny model folder, and an empty `$BERTSCOPE_HOME`."""
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    return shutil.copytree(tiny_model_dir, tmp_path / "model")


def test_a_model_never_loaded_is_not_exported_yet(model):
    plan = auto_plan(model, AVX2)
    assert plan.backend is None and "fingerprint is unknown" in plan.note
    assert auto_plan(model.parent / "nowhere", AVX2).backend is None


def test_the_first_export_that_passed_the_gate_is_picked(model):
    export_on_disk(model, "onnx", GOOD)
    assert auto_plan(model, AVX2) == AutoPlan("onnx", GOOD, "")
    # with VNNI auto tries openvino-int8 first, not exported yet: unknown until loaded
    assert auto_plan(model, VNNI) == AutoPlan(None, note="auto exports openvino-int8 on first use")


def test_an_export_below_the_gate_is_skipped_with_the_reason(model):
    export_on_disk(model, "onnx", BAD)
    plan = auto_plan(model, AVX2)
    assert plan.backend is None and "openvino on first use" in plan.note
    export_on_disk(model, "openvino", GOOD)
    plan = auto_plan(model, AVX2)
    assert (plan.backend, plan.fidelity) == ("openvino", GOOD)
    assert plan.note == f"the onnx export failed the fidelity gate (min cosine {BAD:.4f} < 0.99)"


def test_a_damaged_export_or_changed_weights_are_not_trusted(model):
    folder = export_on_disk(model, "onnx", GOOD)
    (folder / "model.onnx").write_bytes(b"damaged")  # auto would rebuild it at load
    assert auto_plan(model, AVX2).backend is None
    export_on_disk(model, "onnx", GOOD)
    (model / "config.json").write_text("{}", encoding="utf-8")  # other weights: fingerprint unknown
    assert auto_plan(model, AVX2).backend is None


def test_planning_loads_no_torch():
    code = ("import sys; from encoder.auto_plan import auto_plan; auto_plan('minilm'); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False"
