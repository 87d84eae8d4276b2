"""NLI pairs -> training rows: (anchor, positive, negative) triplets for
MultipleNegativesRankingLoss, and (premise, hypothesis, class id) for SBERT's 3-way SoftmaxLoss."""

from __future__ import annotations

import random
from collections import defaultdict

from datasets import Dataset

from .data import NLI_LABELS


def nli_triplets(nli: Dataset, *, seed: int = 0) -> Dataset:
    """One triplet per (premise, entailed hypothesis): the contradiction of the same premise is the
    hard negative (one picked at random under `seed` when there are several). Premises without both
    an entailment and a contradiction give no triplet; neutral hypotheses are not used."""
    by_premise: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for premise, hypothesis, label in zip(
        nli["premise"], nli["hypothesis"], nli["label"], strict=True
    ):
        by_premise[premise][label].append(hypothesis)
    rng = random.Random(seed)
    rows: dict[str, list[str]] = {"anchor": [], "positive": [], "negative": []}
    for premise, groups in by_premise.items():  # dicts keep first-seen order: deterministic
        negatives = groups.get("contradiction")
        if not negatives:
            continue
        for positive in groups.get("entailment", []):
            rows["anchor"].append(premise)
            rows["positive"].append(positive)
            rows["negative"].append(rng.choice(negatives))
    return Dataset.from_dict(rows)


def nli_classes(nli: Dataset) -> Dataset:
    """(premise, hypothesis, label id) with ids in `NLI_LABELS` order, for SoftmaxLoss."""
    ids = {name: i for i, name in enumerate(NLI_LABELS)}
    return Dataset.from_dict(
        {
            "premise": list(nli["premise"]),
            "hypothesis": list(nli["hypothesis"]),
            "label": [ids[x] for x in nli["label"]],
        }
    )
