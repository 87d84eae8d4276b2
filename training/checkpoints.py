"""Checkpoints that a kill cannot leave half-written, and resume from the last complete one.

transformers' `Trainer` writes `checkpoint-N/` file by file, in place: a run killed in the middle
left a `checkpoint-N` with config files only, which `--resume` then picked every time ("no file
named model.safetensors", a `ValueError`). `AtomicCheckpoints` (mixed into the trainers of
`fit` and `mlm`) writes each checkpoint into a hidden staging folder beside the others, fsyncs
it and renames it into place (as `common.atomic` does for files), so `checkpoint-N` appears
whole or not at all. `resume_point` takes the last complete checkpoint and removes partial ones
(staging folders, and `checkpoint-N` folders that lack their state or weights, as runs before
this fix left), saying so.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from pathlib import Path

from common import fsync_path, fsync_tree

log = logging.getLogger("bertscope.training")

STAGING = ".saving-"  # staging folders: hidden, so transformers' checkpoint scans skip them
STATE = "trainer_state.json"  # the file transformers writes last into a checkpoint
WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


class AtomicCheckpoints:
    """Mixin for a `transformers.Trainer` subclass: `class T(AtomicCheckpoints, Trainer)`."""

    _staging: Path | None = None

    def _get_output_dir(self, trial) -> str:
        # while a checkpoint is saved, transformers writes (and rotates) inside the staging root
        return str(self._staging) if self._staging is not None else \
            super()._get_output_dir(trial)

    def _save_checkpoint(self, model, trial) -> None:
        from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR, rotate_checkpoints

        run_dir = Path(super()._get_output_dir(trial))
        name = f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}"
        staging = run_dir / f"{STAGING}{name}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        self._staging = staging
        try:
            super()._save_checkpoint(model, trial)
        finally:
            self._staging = None
        best = self.state.best_global_step
        if best and (best == self.state.global_step or (run_dir / f"checkpoint-{best}").is_dir()):
            self.state.best_model_checkpoint = str(run_dir / f"{PREFIX_CHECKPOINT_DIR}-{best}")
        self.state.save_to_json(str(staging / name / STATE))  # with the best checkpoint's real path
        fsync_tree(staging / name)
        target = run_dir / name
        if target.exists():  # the same step saved by an earlier attempt
            shutil.rmtree(target)
        os.replace(staging / name, target)
        fsync_path(run_dir)
        shutil.rmtree(staging, ignore_errors=True)
        rotate_checkpoints(output_dir=str(run_dir), save_total_limit=self.args.save_total_limit,
                           best_model_checkpoint=self.state.best_model_checkpoint, use_mtime=True)


def complete_checkpoint(path: Path) -> bool:
    """A checkpoint folder with readable trainer state and model weights."""
    try:
        json.loads((path / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return any((path / w).is_file() for w in WEIGHTS)


def complete_checkpoints(folder: Path) -> list[Path]:
    """The complete `checkpoint-N` folders of `folder`, by step."""
    if not folder.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in folder.iterdir()
             if (m := _CHECKPOINT.match(p.name)) and p.is_dir()]
    return [p for _, p in sorted(found) if complete_checkpoint(p)]


def resume_point(folder: Path) -> str | None:
    """The last complete checkpoint in `folder` (None: none); partial ones are removed, with a
    warning that names each."""
    if not folder.is_dir():
        return None
    complete = set(complete_checkpoints(folder))
    for path in sorted(folder.iterdir()):
        if path.name.startswith(STAGING):
            log.warning("removing %s: a checkpoint interrupted while it was written", path)
        elif _CHECKPOINT.match(path.name) and path not in complete:
            log.warning("removing %s: an incomplete checkpoint (a run killed while writing it)",
                        path)
        else:
            continue
        shutil.rmtree(path, ignore_errors=True)
    last = complete_checkpoints(folder)
    return str(last[-1]) if last else None


def atomic(trainer_class: type) -> type:
    """`trainer_class` with checkpoints published atomically (`AtomicCheckpoints`)."""
    return type(f"Atomic{trainer_class.__name__}", (AtomicCheckpoints, trainer_class), {})
