"""Typed settings of a masked-language-model (+ NSP) pretraining run."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

FULL_LR = 5e-5  # BERT's fine-tuning range; continued pretraining of the whole encoder
HEAD_LR = 1e-3  # a fresh head on a frozen encoder learns fast and can take a large step


@dataclass(frozen=True)
class MlmConfig:
    model: str  # bundled name or model folder (a BERT-architecture encoder)
    corpus: tuple[str, ...]  # corpus files (JSONL with a text field, .txt, CSV/TSV, Parquet)
    out: str
    text_field: str = "text"
    eval_corpus: str | None = None  # held-out texts; default: a share of the corpus documents
    eval_fraction: float = 0.05  # share of the documents held out when there is no eval_corpus
    max_eval: int = 1000  # held-out sequences (and NSP pairs) scored before and after
    mlm_probability: float = 0.15
    whole_word: bool = False
    head_only: bool = False  # train the heads only: the encoder (and embeddings) stay frozen
    nsp: bool = False
    epochs: float = 1.0
    max_steps: int | None = None  # overrides epochs
    batch_size: int = 16
    learning_rate: float | None = None  # None: FULL_LR, or HEAD_LR with head_only
    warmup_ratio: float = 0.06
    weight_decay: float = 0.01
    max_length: int = 128
    seed: int = 42
    logging_steps: int = 10
    save_steps: int = 200
    max_docs: int | None = None  # a seeded random sample of the corpus documents
    keep_checkpoints: bool = False
    show_progress: bool = True

    @property
    def lr(self) -> float:
        if self.learning_rate is not None:
            return self.learning_rate
        return HEAD_LR if self.head_only else FULL_LR

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def identity(self) -> dict[str, Any]:
        """What must match for `--resume` to continue this run."""
        d = self.to_dict()
        for key in ("keep_checkpoints", "show_progress", "out"):
            d.pop(key)
        d["corpus"] = list(d["corpus"])
        return d
