"""Trainer callbacks: every log line (loss, learning rate, dev scores) appended to a JSONL file as
it happens, so an interrupted run keeps its history."""

from __future__ import annotations

import json
from pathlib import Path

from transformers import TrainerCallback

from common import finite


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
