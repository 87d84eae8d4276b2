"""The settings of an adaptation (`python -m training adapt`) and their checks: the same rules
as `fit`'s flags, so a value is refused alike everywhere. Defaults measured in
`bench/results/adapt_scifact.md`: titles and headings only, at a low rate (the sources and rates
that did not hurt real queries there)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .adapt_pairs import PAIR_SOURCES
from .errors import TrainingError

DEFAULT_SOURCES = ("title", "heading")


@dataclass(frozen=True)
class AdaptConfig:
    out: str
    model: str | None = None  # None: the index's own encoder
    sources: tuple[str, ...] = DEFAULT_SOURCES
    epochs: float = 1.0
    learning_rate: float = 5e-6
    batch_size: int = 32
    max_seq_length: int = 128  # training window; the model is saved reading as far as before
    max_pairs: int | None = 8000  # bounds a run on 2 CPU cores (see training/README.md)
    check_share: float = 0.1
    seed: int = 42
    show_progress: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_adapt_config(config: AdaptConfig) -> None:
    """Every setting by its rule (the same rules as `fit`'s flags), before anything loads."""
    from .settings import BY_FIELD, EPOCHS, Rule, check_value

    unknown = [s for s in config.sources if s not in PAIR_SOURCES]
    if unknown or not config.sources:
        problem = f"unknown source {unknown[0]!r}" if unknown else "name at least one source"
        raise TrainingError(f"--pairs: {problem}. Valid: {', '.join(PAIR_SOURCES)}")
    check_value("--epochs", EPOCHS, config.epochs)
    for field in ("learning_rate", "batch_size", "max_seq_length", "seed"):
        s = BY_FIELD[field]
        check_value(s.flag, s.rule, getattr(config, field))
    check_value("--max-pairs", Rule(int, minimum=1, nullable=True), config.max_pairs)
    check_value("--check-share", Rule(float, above=0, below=1), config.check_share)
    if config.batch_size < 2:
        raise TrainingError("--batch-size: must be >= 2 (MNRL's negatives are the other pairs of "
                            f"the batch), got {config.batch_size}")



# what a page says before anyone clicks (the timing in training/README.md, bench/adapt_cpu.py)
MEASURED_TIME = ("Time: measured 5.7 min for 5,183 SciFact abstracts with these defaults on 2 "
                 "quiet Intel Xeon cores (bench/results/adapt_cpu.md); it grows with the number "
                 "of documents, and a busy machine takes longer.")
