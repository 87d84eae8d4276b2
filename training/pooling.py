"""The pooling modes a Siamese model may be built with, and their check: read by settings and
forms that must not import sentence-transformers (`siamese` builds the modules)."""

from __future__ import annotations

from .errors import TrainingError

POOLING_MODES = ("mean", "cls", "max")


def check_pooling(mode: str) -> str:
    if mode not in POOLING_MODES:
        raise TrainingError(f"Invalid pooling mode {mode!r}. Valid: {', '.join(POOLING_MODES)}")
    return mode
