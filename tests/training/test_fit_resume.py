"""An interrupted run continues from its last checkpoint and ends where an unbroken one does."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file
from transformers import TrainerCallback

from training import FitConfig, Stage, TrainingError, fit


class StopAfter(TrainerCallback):
    """Interrupts training after `steps` optimizer steps, as Ctrl-C would."""

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step >= self.steps:
            raise KeyboardInterrupt


def _config(model, train, out) -> FitConfig:
    # 6 rows, batch 2 -> 3 steps an epoch, 2 epochs = 6 steps; a checkpoint every 2 steps.
    return FitConfig(
        model=str(model),
        stages=(Stage((str(train),), "cosine", 2.0),),
        out=str(out),
        batch_size=2,
        learning_rate=1e-3,
        eval_steps=2,
        logging_steps=1,
        max_seq_length=32,
        show_progress=False,
    )


def _weights(out) -> dict[str, torch.Tensor]:
    return load_file(str(out / "model.safetensors"))


@pytest.mark.slow
def test_resume_continues_from_the_last_checkpoint(tiny_model_dir, sts_file, tmp_path):
    straight = fit(_config(tiny_model_dir, sts_file, tmp_path / "straight"))

    out = tmp_path / "interrupted"
    with pytest.raises(KeyboardInterrupt):
        fit(_config(tiny_model_dir, sts_file, out), callbacks=[StopAfter(5)])
    assert (out / "checkpoints" / "stage-0" / "checkpoint-4").is_dir()
    assert not (out / "model.safetensors").exists()
    with pytest.raises(TrainingError, match="pass --resume"):
        fit(_config(tiny_model_dir, sts_file, out))

    resumed = fit(_config(tiny_model_dir, sts_file, out), resume=True)
    stage = resumed.metrics["stages"][0]
    assert stage["resumed_from"] == "checkpoint-4"
    assert stage["steps"] == 6
    log = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    steps = [e["step"] for e in log if "loss" in e]
    assert steps == [1, 2, 3, 4, 5, 6]  # steps 1-4 once: the resumed run began after checkpoint-4
    a, b = _weights(straight.out), _weights(out)
    assert all(torch.allclose(a[k], b[k], atol=1e-5) for k in a)


def test_resume_needs_the_same_settings(tiny_model_dir, sts_file, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        fit(_config(tiny_model_dir, sts_file, out), callbacks=[StopAfter(3)])
    other = _config(tiny_model_dir, sts_file, out)
    other = type(other)(**{**other.__dict__, "learning_rate": 5e-4})
    with pytest.raises(TrainingError, match="other settings"):
        fit(other, resume=True)
