"""`evaluate_model(backend=)` / `python -m training evaluate --backend`: the scores come from the
backend asked for (or `auto`'s choice), the results name it, and a bad name stops before any
model loads."""

from __future__ import annotations

import json

import pytest
from backend_stub import labelled

import encoder
from training import TrainingError
from training.evaluate import evaluate_model


@pytest.fixture
def loads(monkeypatch, tiny_torch):
    """`encoder.load_encoder` answering with the tiny encoder labelled with the backend asked
    for (`auto`: openvino); records the backends asked for."""
    calls: list[str] = []

    def load(name, device="cpu", backend="auto"):
        calls.append(backend)
        runs = "openvino" if backend == "auto" else backend
        return labelled(tiny_torch, runs, 1.0 if runs == "torch" else 0.998)

    monkeypatch.setattr(encoder, "load_encoder", load)
    return calls


def test_the_results_name_the_backend_that_ran(tiny_model_dir, sts_file, loads):
    results = evaluate_model(tiny_model_dir, sts=[str(sts_file)])
    assert loads == ["auto"]
    assert (results.backend, results.fidelity) == ("openvino", 0.998)
    assert results.lines()[0].startswith(f"{tiny_model_dir} [openvino]  ")
    assert json.loads(json.dumps(results.to_dict()))["backend"] == "openvino"
    plain = evaluate_model(tiny_model_dir, sts=[str(sts_file)], backend="torch")
    assert loads[-1] == "torch" and plain.lines()[0].startswith(f"{tiny_model_dir}  ")
    # the same weights (the stand-in runs torch underneath): the same scores
    assert plain.sts[0].spearman == pytest.approx(results.sts[0].spearman)


def test_sts_is_scored_through_the_encoder_as_through_its_model(tiny_torch, sts_file):
    from training import evaluate_sts, load_pairs

    data = load_pairs(sts_file)
    via_encoder = evaluate_sts(tiny_torch, data)
    via_model = evaluate_sts(tiny_torch.model, data)
    assert via_encoder.spearman == pytest.approx(via_model.spearman, abs=1e-6)
    assert via_encoder.pearson == pytest.approx(via_model.pearson, abs=1e-4)


@pytest.mark.parametrize("bad", ["gpu", "ONNX", "", None])
def test_a_bad_backend_is_refused_before_any_model_loads(sts_file, bad):
    with pytest.raises(TrainingError, match="Invalid backend .*Valid: auto, torch, onnx"):
        evaluate_model("no-such-model", sts=[str(sts_file)], backend=bad)


def test_the_cli_takes_backend_and_refuses_a_bad_one(run_cli, tiny_model_dir, sts_file, loads):
    done = run_cli("training", "evaluate", tiny_model_dir, "--sts", sts_file, "--backend",
                   "onnx", "--no-progress")
    assert done.code == 0, str(done)
    assert loads == ["onnx"] and "[onnx]" in done.out
    bad = run_cli("training", "evaluate", tiny_model_dir, "--sts", sts_file, "--backend",
                  "onnx_int8")
    assert bad.code == 2 and "invalid choice: 'onnx_int8'" in bad.error
    assert loads == ["onnx"]  # argparse refused it: nothing loaded
