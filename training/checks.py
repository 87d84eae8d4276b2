"""Settings of a training run checked before any data or model loads: each refusal names the
flag (or field) and what it takes, so a typo never surfaces as a traceback an hour in."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from common import file_checksum

from .config import FitConfig, Stage
from .errors import TrainingError
from .settings import STAGE_SETTINGS, TASK_MAX_ROWS, check_settings, check_value


def check_config(config: FitConfig) -> None:
    """Every setting of `config` by the rule of the settings table (named by its flag), then
    its stages and what early stopping needs."""
    c = config
    check_settings(c)  # before the stages: a library caller's typo is named by its flag
    if isinstance(c.stages, Stage) or not isinstance(c.stages, (list, tuple)):
        raise TrainingError(f"stages must be a tuple of Stage, got {type(c.stages).__name__}")
    if not c.stages:
        raise TrainingError("no training stage: pass --train FILE (and --loss NAME)")
    if c.early_stopping_patience is not None and not c.dev_sets:
        raise TrainingError("early stopping needs a dev set: pass --dev FILE")


def check_stage(stage: Stage) -> None:
    """The stage's types and numbers (epochs, its own batch size, learning rate and row budgets)
    by the table's rules, before any of its files load (a missing loss is the data kind's
    default; each task's files are checked where they load)."""
    if not isinstance(stage, Stage):
        raise TypeError(f"each stage must be a Stage, got {type(stage).__name__}")
    if stage.loss is not None and not isinstance(stage.loss, str):
        raise TrainingError(f"--loss must be a loss name, got {stage.loss!r}")
    if isinstance(stage.train, (str, Path)):
        raise TrainingError(f"Stage.train must be a tuple of files, not one: use "
                            f"({str(stage.train)!r},)")
    for key, (attr, rule) in STAGE_SETTINGS.items():
        check_value("--epochs" if key == "epochs" else f"Stage.{attr}", rule,
                    getattr(stage, attr))
    for task in stage.tasks:
        check_value("Task.max_rows", TASK_MAX_ROWS, task.max_rows)


def scored_on_training_data(scored: Sequence[tuple[str, str]], trained: Sequence[tuple[str, str]]
                            ) -> tuple[str, str, str] | None:
    """The first scored set that is also training data: the same file or folder once resolved,
    or a file with the same bytes. Both lists hold (label, path); returns (the scored set's
    label, `is the same file as` or `has the same content as`, the training file's label), or
    None when all are apart."""
    for label, path in scored:
        for t_label, t_path in trained:
            how = _same_data(Path(path), Path(t_path))
            if how:
                return label, how, t_label
    return None


SCORED_APART = ("a set scored on the data the model trains on measures what the model memorised, "
                "not what it learned: score held-out data instead")


def _same_data(a: Path, b: Path) -> str | None:
    try:
        if a.resolve() == b.resolve():
            return "is the same file as"
        if a.is_file() and b.is_file() and a.stat().st_size == b.stat().st_size \
                and file_checksum(a) == file_checksum(b):
            return "has the same content as"
    except OSError:  # unreadable: the loaders say so with the file's name
        return None
    return None


def fit_sets_apart(config: FitConfig) -> str | None:
    """What is wrong when a dev or report set of `config` is one of its training files: a
    sentence naming both, or None."""
    scored = [*((f"--dev {p}", p) for p in config.dev_sets),
              *((f"report set {p}", p) for p in config.report)]
    trained = [(f"--train {f}", f) for s in config.stages for t in s.all_tasks()
               for f in t.train if f != "cv:train"]
    hit = scored_on_training_data(scored, trained)
    return f"{hit[0]} {hit[1]} {hit[2]}: {SCORED_APART}" if hit else None


def check_fit_sets_apart(config: FitConfig) -> None:
    """Refuse (entry points) a dev or report set that is a training file."""
    problem = fit_sets_apart(config)
    if problem:
        raise TrainingError(problem)
