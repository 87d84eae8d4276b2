"""A search's arguments, checked the same way on every store (the folder store's `Searcher`,
Milvus's `MilvusSearcher`): one `QueryError` naming what is wrong."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from common.text import check_text

from .errors import QueryError
from .fusion import DEFAULT_WEIGHTS, FUSIONS, check_weights
from .presets import Spec, check_knobs
from .validation import check_flag, check_rrf_k

MODES = ("dense", "lexical", "hybrid")


def check_search(queries: Sequence[str], k: int, mode: str, per_chunk: bool, rrf_k: int,
                 fusion: str, weights, spec: Spec, knobs: dict[str, int]):
    """A search's arguments checked, one `QueryError` naming what is wrong, for every store:
    (queries, per_chunk, fusion arguments, knobs)."""
    items = check_queries(queries)
    if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
        raise QueryError(f"k must be a positive integer, got {k!r}")
    if mode not in MODES:
        raise QueryError(f"Invalid search mode {mode!r}. Valid: {', '.join(MODES)}")
    per_chunk, rrf_k = check_flag(per_chunk, "per_chunk"), check_rrf_k(rrf_k)
    if weights is not None and mode != "hybrid":  # they were ignored without a word
        raise QueryError(f"weights apply to mode='hybrid' only (they weigh its dense and "
                         f"lexical lists); mode={mode!r} ranks by one list: drop weights, or "
                         "search with mode='hybrid'")
    fusion_args = check_fusion(fusion, weights, rrf_k)
    try:
        knobs = check_knobs(spec, knobs)
    except ValueError as exc:
        raise QueryError(str(exc)) from exc
    return items, per_chunk, fusion_args, knobs



def check_fusion(fusion: str, weights: Sequence[float] | None, rrf_k: int) -> dict[str, Any]:
    """`fuse`'s arguments for a hybrid search; `weights` None: the fusion's measured default.
    The weights go through `fusion.check_weights`, the check `fuse` itself makes."""
    if fusion not in FUSIONS:
        raise QueryError(f"Invalid fusion {fusion!r}. Valid: {', '.join(FUSIONS)}")
    if weights is None:
        weights = DEFAULT_WEIGHTS[fusion]
    try:
        checked = check_weights(weights, 2, names=("dense", "lexical"))
    except ValueError as exc:
        raise QueryError(str(exc)) from exc
    return {"method": fusion, "weights": tuple(checked), "rrf_k": rrf_k}


def check_queries(queries: Sequence[str]) -> list[str]:
    if not isinstance(queries, (list, tuple)) or not queries:
        raise QueryError("queries must be a string or a non-empty list of strings")
    for q in queries:
        try:
            check_text(q, "a query", "type some words to search for")
        except (TypeError, ValueError) as exc:
            raise QueryError(str(exc)) from exc
    return list(queries)
