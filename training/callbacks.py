"""Trainer callbacks: every log line (loss, learning rate, dev scores) appended to a JSONL file as
it happens, so an interrupted run keeps its history; and, in a job, its steps to the job's progress
file."""

from __future__ import annotations

import json
from pathlib import Path

from transformers import TrainerCallback

from common import finite
from common.jobs import job_progress_file


class JsonlLogCallback(TrainerCallback):
    def __init__(self, path: Path, stage: int) -> None:
        self.path = path
        self.stage = stage

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not logs or not state.is_world_process_zero:
            return
        entry = {"stage": self.stage, "step": state.global_step, "epoch": state.epoch, **logs}
        with self.path.open("a", encoding="utf-8") as f:
            # a diverging loss or an undefined dev score is NaN: written as null, JSON has no NaN
            f.write(json.dumps(finite(entry), default=float, allow_nan=False) + "\n")


class JobProgressCallback(TrainerCallback):
    """Steps done of the trainer's total, written to the job's progress file (`common.jobs`):
    from the first step, and from the checkpoint's step on a resumed run."""

    def __init__(self, report, phase: str = "training") -> None:
        self.report = report
        self.phase = phase

    def on_train_begin(self, args, state, control, **kwargs):
        self.report(state.global_step, state.max_steps, unit="steps", phase=self.phase)

    def on_step_end(self, args, state, control, **kwargs):
        self.report(state.global_step, state.max_steps, unit="steps", phase=self.phase)

    def on_train_end(self, args, state, control, **kwargs):
        # what follows (held-out scores, saving) has no steps: say the steps are behind it
        self.report(state.global_step, state.max_steps, unit="steps",
                    phase=f"{self.phase} finished, scoring and saving")


def job_callbacks(phase: str = "training") -> list[TrainerCallback]:
    """`[JobProgressCallback]` when this process runs as a job, else nothing."""
    report = job_progress_file()
    return [JobProgressCallback(report, phase)] if report else []
