"""Typed settings of a training run: stages (data + loss + epochs) and shared hyper-parameters."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Stage:
    """One pass of training: files of one data kind, one loss. Stages run in order (SBERT: NLI
    first, then STS-B), each starting from the weights the previous one left."""

    train: tuple[str, ...]
    loss: str
    epochs: float = 1.0


@dataclass(frozen=True)
class FitConfig:
    model: str  # bundled name or local folder
    stages: tuple[Stage, ...]
    out: str
    dev: str | None = None  # scored or binary pairs; Spearman of cosine picks the best checkpoint
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def identity(self) -> dict[str, Any]:
        """What must match for `--resume` to continue this run rather than start another."""
        d = self.to_dict()
        for key in ("keep_checkpoints", "show_progress", "extra", "out"):
            d.pop(key)
        d["stages"] = [dict(s, train=list(s["train"])) for s in d["stages"]]
        return d
