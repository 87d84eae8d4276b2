"""The `cross_validation` block of a recipe (see `crossval.py`), checked where it is written:
`recipes/x.json: cross_validation.folds: ...`. Everything that can be known before training is
checked here, the number of judged queries included: each fold must hold out at least one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .recipe_checks import Checker, existing

CV_KEYS = {"beir", "split", "folds", "seed", "negatives", "final", "search_max_length"}
NEGATIVE_KEYS = {"per_query", "depth", "skip"}


@dataclass(frozen=True)
class CrossValidation:
    beir: Path
    split: str = "train"
    folds: int = 3
    seed: int = 15
    per_query: int = 1  # hard negatives mined per (query, relevant document)
    depth: int = 20  # ... drawn from BM25's top `depth`, relevant documents excluded
    skip: int = 0  # ... after skipping the top `skip` non-relevant hits (likely unjudged positives)
    final: bool = True  # also train on every query (the model to ship)
    search_max_length: int | None = None  # tokens a document keeps when searched (else training's)


def cross_validation(v: Checker, raw: Any, root: Path) -> CrossValidation | None:
    if raw is None:
        return None
    where = "cross_validation"
    if not isinstance(raw, dict):
        raise v.error(where, "is an object such as {\"beir\": \"scifact\", \"folds\": 3}")
    v.keys(raw, CV_KEYS, where)
    folder = existing(v, root, v.typed(raw, "beir", (str,), where, required=True), where,
                      folder=True)
    negatives = v.typed(raw, "negatives", (dict,), where) or {}
    v.keys(negatives, NEGATIVE_KEYS, f"{where}.negatives")
    numbers = {k: v.typed(negatives, k, (int,), f"{where}.negatives") for k in NEGATIVE_KEYS}
    cv = CrossValidation(folder, **{k: x for k, x in numbers.items() if x is not None},
                         **{k: v.typed(raw, k, t, where) for k, t in
                            (("split", (str,)), ("folds", (int,)), ("seed", (int,)),
                             ("final", (bool,)), ("search_max_length", (int,))) if k in raw})
    if cv.folds < 2:
        raise v.error(f"{where}.folds", f"must be >= 2, got {cv.folds}")
    if cv.per_query < 1 or cv.depth <= cv.skip or cv.skip < 0:
        raise v.error(f"{where}.negatives", "needs per_query >= 1 and 0 <= skip < depth")
    if cv.search_max_length is not None and cv.search_max_length < 8:
        raise v.error(f"{where}.search_max_length",
                      f"must be >= 8 tokens, got {cv.search_max_length}")
    qrels = folder / "qrels" / f"{cv.split}.tsv"
    if not qrels.is_file():
        raise v.error(f"{where}.split", f"{qrels} not found")
    _check_folds(v, cv, where)
    return cv


def _check_folds(v: Checker, cv: CrossValidation, where: str) -> None:
    """Each fold holds out at least one judged query: more folds than queries would train
    folds that score nothing (nDCG 0.0 each, a saved model each)."""
    from metrics import judged_queries

    try:
        queries, _ = judged_queries(cv.beir, cv.split)
    except (OSError, ValueError) as exc:
        raise v.error(f"{where}.beir", str(exc)) from None
    if cv.folds > len(queries):
        raise v.error(f"{where}.folds",
                      f"{cv.folds} folds need at least {cv.folds} judged queries (each fold "
                      f"holds one out), but {cv.beir} has {len(queries)} in split "
                      f"{cv.split!r}: use at most {len(queries)} folds")
