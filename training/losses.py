"""The training objectives: a name the user types -> the data kinds it accepts, how rows are shaped
for it, and the sentence-transformers loss module that scores them. The registry imports neither
sentence-transformers nor torch (seconds of CPU): forms, flags and recipes read it; a loss
module is made only when a run builds it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import TrainingError

if TYPE_CHECKING:
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer
    from torch import nn

    from .data import LoadedData

log = logging.getLogger("bertscope.training")


@dataclass(frozen=True)
class LossSpec:
    name: str
    description: str
    kinds: tuple[str, ...]  # data kinds it trains on
    prepare: Callable[[LoadedData, int], Dataset]  # (data, seed) -> columns in the loss's order
    build: Callable[[SentenceTransformer], nn.Module]


def _pairs_scaled(data: LoadedData, seed: int) -> Dataset:
    """Scores mapped to [0, 1] (STS 0-5 divided by 5; binary and 0-1 files kept): the cosine
    loss target."""
    top = data.score_max
    if data.kind == "scored" and top == 1.0:
        log.warning("%s: every score lies within 0-1, so it is read as a 0-1 scale: the cosine "
                    "loss aims at the scores as they are, not at a fifth of them (STS-B's 0-5)",
                    data.path)
    return data.dataset.map(lambda r: {"score": r["score"] / top})


def _pairs_raw(data: LoadedData, seed: int) -> Dataset:
    return data.dataset  # CoSENT only uses the order of the scores


def _pairs_int(data: LoadedData, seed: int) -> Dataset:
    return data.dataset.map(lambda r: {"label": int(r["score"])}, remove_columns=["score"])


def _positives(data: LoadedData, seed: int) -> Dataset:
    """MNRL rows: NLI -> (anchor, positive, hard negative); binary pairs -> positive pairs only;
    triplets as they are."""
    from .nli import nli_triplets

    if data.kind == "nli":
        return nli_triplets(data.dataset, seed=seed)
    if data.kind == "triplet":
        return data.dataset
    positive = data.dataset.filter(lambda r: r["score"] == 1.0)
    return positive.remove_columns(["score"])


def _nli_classes(data: LoadedData, seed: int) -> Dataset:
    from .nli import nli_classes

    return nli_classes(data.dataset)


def _st_loss(name: str) -> Callable[[SentenceTransformer], nn.Module]:
    """sentence-transformers' loss class `name` built on a model, imported when first built."""
    def build(model: SentenceTransformer) -> nn.Module:
        from sentence_transformers.sentence_transformer import losses

        return getattr(losses, name)(model)

    build.__name__ = name
    return build


def _softmax(model: SentenceTransformer) -> nn.Module:
    from sentence_transformers.sentence_transformer import losses

    from .data import NLI_LABELS

    dim = model.get_embedding_dimension()
    return losses.SoftmaxLoss(model, embedding_dimension=dim, num_labels=len(NLI_LABELS))


LOSSES: dict[str, LossSpec] = {
    spec.name: spec
    for spec in (
        LossSpec(
            "cosine",
            "CosineSimilarityLoss: MSE between cosine and score/5 (SBERT regression)",
            ("scored", "binary"),
            _pairs_scaled,
            _st_loss("CosineSimilarityLoss"),
        ),
        LossSpec(
            "cosent",
            "CoSENTLoss: ranks pairs by score through their cosines",
            ("scored", "binary"),
            _pairs_raw,
            _st_loss("CoSENTLoss"),
        ),
        LossSpec(
            "mnrl",
            "MultipleNegativesRankingLoss: in-batch negatives (+ a hard negative)",
            ("nli", "binary", "triplet"),
            _positives,
            _st_loss("MultipleNegativesRankingLoss"),
        ),
        LossSpec(
            "softmax",
            "SoftmaxLoss: 3-way NLI classifier on (u, v, |u-v|), SBERT's original",
            ("nli",),
            _nli_classes,
            _softmax,
        ),
        LossSpec(
            "contrastive",
            "OnlineContrastiveLoss: hard positive/negative pairs in a batch",
            ("binary",),
            _pairs_int,
            _st_loss("OnlineContrastiveLoss"),
        ),
    )
}
# Class names work as well as short names.
_CLASS_NAMES = {
    "cosinesimilarityloss": "cosine",
    "cosentloss": "cosent",
    "multiplenegativesrankingloss": "mnrl",
    "softmaxloss": "softmax",
    "onlinecontrastiveloss": "contrastive",
}


def get_loss(name: str) -> LossSpec:
    key = _CLASS_NAMES.get(name.strip().lower(), name.strip().lower())
    if key not in LOSSES:
        raise TrainingError(f"Unknown loss {name!r}. Valid: {', '.join(LOSSES)}")
    return LOSSES[key]


def check_loss_data(spec: LossSpec, data: LoadedData) -> None:
    if data.kind not in spec.kinds:
        raise TrainingError(
            f"{data.path}: loss {spec.name!r} trains on {' or '.join(spec.kinds)} data, "
            f"but this file holds {data.kind} data"
        )
