"""Siamese Sentence-BERT training and evaluation over BERTScope encoders.

Library first: `python -m training` is a thin driver over these functions. The names below are
imported when first used (PEP 562): `training.fit` pulls in sentence-transformers and torch
(seconds of CPU), which the app's pages and a CLI's usage errors read `training.settings`,
`training.run_plan` or `training.report` without needing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "FitConfig": "config", "Stage": "config",
    "KINDS": "data", "NLI_LABELS": "data", "BadRow": "data", "LoadedData": "data",
    "load_pairs": "data",
    "TrainingError": "errors",
    "FitResult": "fit", "fit": "fit",
    "LOSSES": "losses", "LossSpec": "losses", "get_loss": "losses",
    "nli_classes": "nli", "nli_triplets": "nli",
    "POOLING_MODES": "pooling", "build_siamese": "siamese", "pooling_mode": "siamese",
    "StsResult": "sts", "evaluate_sts": "sts", "load_sts": "sts", "sts_evaluator": "sts",
}

__all__ = [
    "KINDS",
    "LOSSES",
    "NLI_LABELS",
    "POOLING_MODES",
    "BadRow",
    "FitConfig",
    "FitResult",
    "LoadedData",
    "LossSpec",
    "Stage",
    "StsResult",
    "TrainingError",
    "build_siamese",
    "evaluate_sts",
    "fit",
    "get_loss",
    "load_pairs",
    "load_sts",
    "nli_classes",
    "nli_triplets",
    "pooling_mode",
    "sts_evaluator",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'training' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


if TYPE_CHECKING:
    from .config import FitConfig, Stage
    from .data import KINDS, NLI_LABELS, BadRow, LoadedData, load_pairs
    from .errors import TrainingError
    from .fit import FitResult, fit
    from .losses import LOSSES, LossSpec, get_loss
    from .nli import nli_classes, nli_triplets
    from .pooling import POOLING_MODES
    from .siamese import build_siamese, pooling_mode
    from .sts import StsResult, evaluate_sts, load_sts, sts_evaluator
