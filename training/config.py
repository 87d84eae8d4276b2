"""Typed settings of a training run: stages (data + loss + epochs) and shared hyper-parameters."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Task:
    """Files of one data kind trained with one loss; `loss=None` picks the kind's default."""

    train: tuple[str, ...]
    loss: str | None = None
    max_rows: int | None = None  # a seeded random sample of N rows of this task


@dataclass(frozen=True)
class Stage:
    """One pass of training: files of one data kind, one loss. Stages run in order (SBERT: NLI
    first, then STS-B), each starting from the weights the previous one left.

    `tasks` makes the stage multi-task: each task keeps its own loss and every batch is drawn
    from one task, in proportion to its size (sentence-transformers' multi-dataset training);
    `train`/`loss` are then unused. `batch_size`/`learning_rate` override the run's for this stage.
    """

    train: tuple[str, ...] = ()
    loss: str | None = None  # None: the default loss of the files' data kind
    epochs: float = 1.0
    tasks: tuple[Task, ...] = ()
    name: str | None = None
    batch_size: int | None = None
    learning_rate: float | None = None

    def all_tasks(self) -> tuple[Task, ...]:
        return self.tasks or (Task(self.train, self.loss),)


@dataclass(frozen=True)
class FitConfig:
    model: str  # bundled name or local folder
    stages: tuple[Stage, ...]
    out: str
    # Scored or binary pairs; the mean Spearman of cosine over them picks the best checkpoint.
    dev: str | tuple[str, ...] | None = None
    report: tuple[str, ...] = ()  # evaluated before and after each stage; never picks anything
    early_stopping_patience: int | None = None  # stop after N dev evaluations without a gain
    pooling: str = "mean"
    max_seq_length: int = 128
    batch_size: int = 16
    learning_rate: float = 2e-5
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    eval_steps: int = 100
    logging_steps: int = 10
    seed: int = 42
    max_rows: int | None = None  # train on a seeded random sample of N rows a stage (quick runs)
    freeze_embeddings: bool = (
        False  # keep the word-embedding matrix fixed (e5: 96M of 118M weights)
    )
    prompt: str | None = "query"  # the model's prompt put before every text (e5: "query: ")
    keep_checkpoints: bool = False
    show_progress: bool = True
    extra: dict[str, Any] = field(default_factory=dict)  # free-form notes kept in run.json

    @property
    def dev_sets(self) -> tuple[str, ...]:
        if self.dev is None:
            return ()
        return (self.dev,) if isinstance(self.dev, str) else tuple(self.dev)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def identity(self) -> dict[str, Any]:
        """What must match for `--resume` to continue this run rather than start another."""
        d = self.to_dict()
        for key in ("keep_checkpoints", "show_progress", "extra", "out"):
            d.pop(key)
        return json.loads(json.dumps(d))  # tuples -> lists, as run.json reads back
