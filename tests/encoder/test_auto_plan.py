"""`auto_plan`: what `auto` would encode a model with, read from the exports on disk without
loading anything (the Models page shows it for models not loaded yet)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from backend_stub import BAD, GOOD, export_on_disk

from encoder.auto_plan import AutoPlan, auto_plan, first_use_export
from encoder.backends import SPECS, export_estimate_s

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


def test_the_first_use_export_is_named_with_its_estimate(model):
    """A model never loaded: `auto` exports its first candidate, at minilm's measured time scaled
    by the encoder's compute (the tiny model's layers x width² against minilm's)."""
    import json

    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    layers, width = config["num_hidden_layers"], config["hidden_size"]
    backend, seconds = first_use_export(model, VNNI)
    assert backend == "openvino-int8"
    assert seconds == pytest.approx(SPECS[backend].typical_export_s * layers * width**2
                                    / (6 * 384**2))
    assert first_use_export(model, AVX2)[0] == "onnx"
    export_on_disk(model, "onnx", BAD)  # below the gate: auto goes on to the next one
    assert first_use_export(model, AVX2)[0] == "openvino"
    export_on_disk(model, "openvino", GOOD)  # one exists: nothing to make on first use
    assert first_use_export(model, AVX2) is None


def test_a_model_twice_as_deep_is_estimated_twice_as_long():
    assert export_estimate_s("onnx", 12, 384) == 2 * export_estimate_s("onnx", 6, 384)
    assert export_estimate_s("torch", 6, 384) is None
