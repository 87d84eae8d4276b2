"""Dev sets that pick the best checkpoint (several: their mean Spearman, through
sentence-transformers' `SequentialEvaluator`), and report sets scored before and after training.

One dev set keeps the evaluator name `dev`, so its trainer metric stays `eval_dev_spearman_cosine`;
several are named after their files and the trainer's metric is their mean,
`eval_sequential_score`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sentence_transformers import SentenceTransformer
from sentence_transformers.base.evaluation.sequential import SequentialEvaluator

from .data import LoadedData
from .sts import evaluate_sts, load_sts, sts_evaluator

SINGLE_METRIC = "eval_dev_spearman_cosine"
MEAN_METRIC = "eval_sequential_score"


def load_sets(paths: Sequence[str], *, role: str) -> list[LoadedData]:
    return [load_sts(p, role=role) for p in paths]


def set_name(path: str) -> str:
    """A metric-key-safe label: `stsb-zh/dev.jsonl` -> `stsb-zh-dev`; a held-out part file
    (`.../lcqmc-dev.select.jsonl`, see holdout.py) -> `lcqmc-dev-select`."""
    p = Path(path)
    name = p.stem if "." in p.stem else f"{p.parent.name}-{p.stem}"
    return re.sub(r"[^0-9A-Za-z]+", "-", name).strip("-")


def metric_key(sets: Sequence[LoadedData]) -> str:
    return SINGLE_METRIC if len(sets) == 1 else MEAN_METRIC


def dev_evaluator(sets: Sequence[LoadedData], model: SentenceTransformer, prompt: str | None):
    """The trainer's evaluator: one set as `dev`, several with their mean as the main score."""
    if not sets:
        return None
    if len(sets) == 1:
        return sts_evaluator(sets[0], model, name="dev", prompt=prompt)
    evaluators = [sts_evaluator(s, model, name=set_name(s.path), prompt=prompt) for s in sets]
    return SequentialEvaluator(evaluators, main_score_function=lambda xs: sum(xs) / len(xs))


def score_sets(
    model: SentenceTransformer, sets: Sequence[LoadedData], *, prompt: str | None
) -> dict[str, Any] | None:
    """{"spearman", "pearson": means x 100, "sets": [per file]}; one set keeps its own fields."""
    if not sets:
        return None
    results = [evaluate_sts(model, s, prompt=prompt).to_dict() for s in sets]
    summary = dict(results[0]) if len(results) == 1 else {}
    summary["spearman"] = sum(r["spearman"] for r in results) / len(results)
    summary["pearson"] = sum(r["pearson"] for r in results) / len(results)
    summary["sets"] = results
    return summary


def describe(sets: Sequence[LoadedData]) -> list[dict[str, Any]]:
    return [{"path": s.path, "rows": len(s), "bad_rows": len(s.bad_rows)} for s in sets]
