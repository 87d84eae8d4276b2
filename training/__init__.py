"""Siamese Sentence-BERT training and evaluation over BERTScope encoders.

Library first: `python -m training` is a thin driver over these functions.
"""

from .config import FitConfig, Stage
from .data import KINDS, NLI_LABELS, BadRow, LoadedData, load_pairs
from .errors import TrainingError
from .fit import FitResult, fit
from .losses import LOSSES, LossSpec, get_loss
from .nli import nli_classes, nli_triplets
from .siamese import POOLING_MODES, build_siamese, pooling_mode
from .sts import StsResult, evaluate_sts, load_sts, sts_evaluator

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
