"""The adaptation's own check, on the user's documents with no labels: a held-out slice of the
documents (never trained on), pseudo-queries that point at them, and retrieval scored before and
after, with a verdict that says whether the change is more than noise.

Queries: a document's own title (`adapt_pairs.own_title`), and one sentence taken out of the
document (the inverse-cloze task). The held-out documents are searched without their titles and
without the sentences taken out, passage by passage (a document scores by its best passage, as an
index scores by its best chunk). Scores: nDCG@10 and MRR@10 by `metrics.ir`; the verdict compares
the per-query differences with a paired bootstrap (seeded).

Standard library, numpy and `metrics` only (no model): the encoder is a function passed in.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from metrics import mrr_at_k, ndcg_at_k

from .adapt_pairs import PASSAGE_WORDS, own_title, passages, sentences

CHECK_SHARE = 0.1  # of the documents held out for the check
CHECK_MAX_DOCS = 500  # at most: the check encodes them twice (before, after)
CHECK_MIN_DOCS = 20  # fewer and no verdict can be drawn
NOISE_SAMPLES = 2000  # bootstrap samples of the paired difference

# encode(texts, kind) -> unit vectors (n, dim); kind "query" or "passage" (the model's prompt)
Encode = Callable[[Sequence[str], str], np.ndarray]


@dataclass(frozen=True)
class CheckSet:
    queries: dict[str, str]  # qid -> text
    kinds: dict[str, str]  # qid -> "title" or "sentence"
    qrels: dict[str, dict[str, int]]  # qid -> {doc id: 1}
    passages: list[tuple[str, str]]  # (doc id, passage text) searched
    documents: int = 0

    def to_dict(self) -> dict:
        counts = {k: sum(1 for v in self.kinds.values() if v == k) for k in ("title", "sentence")}
        return {"documents": self.documents, "passages": len(self.passages),
                "queries": len(self.queries), "title_queries": counts["title"],
                "sentence_queries": counts["sentence"]}


@dataclass(frozen=True)
class CheckScores:
    ndcg10: float
    mrr10: float
    per_query: dict[str, float] = field(repr=False)  # qid -> nDCG@10
    by_kind: dict[str, float] = field(default_factory=dict)  # "title"/"sentence" -> nDCG@10

    def to_dict(self) -> dict:
        return {"ndcg@10": round(self.ndcg10, 4), "mrr@10": round(self.mrr10, 4),
                "ndcg@10_by_query_kind": {k: round(v, 4) for k, v in self.by_kind.items()}}


def held_out(doc_id: str, share: float, seed: int) -> bool:
    """Whether `doc_id` is in the check slice: by a hash of the id, so the same documents are
    held out whatever their order and however many there are."""
    digest = hashlib.sha256(f"{seed}:{doc_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def split_documents(docs: Sequence, *, share: float = CHECK_SHARE, seed: int = 42,
                    max_docs: int = CHECK_MAX_DOCS) -> tuple[list, list]:
    """(documents to train on, documents held out for the check, at most `max_docs`; the
    held-out documents past `max_docs` go back to training)."""
    train, check = [], []
    for doc in docs:
        (check if held_out(doc.id, share, seed) and len(check) < max_docs else train).append(doc)
    return train, check


def check_set(docs: Sequence, *, seed: int = 42, size: int = PASSAGE_WORDS) -> CheckSet:
    """Pseudo-queries over the held-out `docs`: each document's own title, and one sentence
    taken out of it (where it has three or more); its passages without either."""
    rng = random.Random(seed)
    queries: dict[str, str] = {}
    kinds: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    searched: list[tuple[str, str]] = []
    for doc in docs:
        said = sentences(doc.text)
        text = doc.text
        if len(said) >= 3:
            taken = said[rng.randrange(len(said))]
            qid = f"{doc.id}#sentence"
            queries[qid], kinds[qid], qrels[qid] = taken, "sentence", {doc.id: 1}
            text = " ".join(s for s in said if s != taken)
        if title := own_title(doc):
            qid = f"{doc.id}#title"
            queries[qid], kinds[qid], qrels[qid] = title, "title", {doc.id: 1}
        searched.extend((doc.id, p) for p in passages(text, size))
    return CheckSet(queries, kinds, qrels, searched, len(docs))


def score(encode: Encode, check: CheckSet, *, k: int = 10) -> CheckScores:
    """Each query searched over every passage (exact cosine); a document scores by its best."""
    qids = list(check.queries)
    if not qids:  # too few documents to hold any out: nothing to score (the verdict says so)
        return CheckScores(0.0, 0.0, {})
    q = encode([check.queries[i] for i in qids], "query")
    p = encode([t for _, t in check.passages], "passage")
    sims = q @ p.T  # (queries, passages)
    owners = [d for d, _ in check.passages]
    run: dict[str, dict[str, float]] = {}
    for row, qid in enumerate(qids):
        best: dict[str, float] = {}
        for col in np.argsort(-sims[row])[: 4 * k]:
            best.setdefault(owners[col], float(sims[row, col]))
        run[qid] = best
    per_query = {qid: ndcg_at_k({qid: run[qid]}, check.qrels, k) for qid in qids}
    by_kind = {}
    for kind in ("title", "sentence"):
        ids = [i for i in qids if check.kinds[i] == kind]
        if ids:
            by_kind[kind] = float(np.mean([per_query[i] for i in ids]))
    return CheckScores(ndcg_at_k(run, check.qrels, k), mrr_at_k(run, check.qrels, k), per_query,
                       by_kind)


@dataclass(frozen=True)
class Verdict:
    better: bool  # the adapted model is better by more than the noise: offer it
    delta: float  # nDCG@10 after - before
    low: float  # 95 % interval of the difference (paired bootstrap over the queries)
    high: float
    text: str  # one sentence for a person

    def to_dict(self) -> dict:
        return {"better": self.better, "delta": round(self.delta, 4),
                "interval95": [round(self.low, 4), round(self.high, 4)], "text": self.text}


def verdict(before: CheckScores, after: CheckScores, *, seed: int = 42,
            samples: int = NOISE_SAMPLES) -> Verdict:
    """Better only when the whole 95 % interval of the paired difference lies above 0."""
    qids = sorted(before.per_query)
    diffs = np.array([after.per_query[q] - before.per_query[q] for q in qids])
    delta = float(diffs.mean()) if len(diffs) else 0.0
    if len(diffs) < CHECK_MIN_DOCS:
        return Verdict(False, delta, delta, delta,
                       f"Too few held-out queries ({len(diffs)}) to tell whether adapting helped: "
                       "keep the model you have.")
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), size=(samples, len(diffs)))].mean(axis=1)
    low, high = (float(x) for x in np.percentile(means, [2.5, 97.5]))
    figures = (f"nDCG@10 {before.ndcg10:.4f} before, {after.ndcg10:.4f} after "
               f"({delta:+.4f}, 95 % interval {low:+.4f} to {high:+.4f}, {len(diffs)} queries)")
    if low > 0:
        return Verdict(True, delta, low, high, f"Adapting helped on your held-out documents: "
                                               f"{figures}.")
    if high < 0:
        return Verdict(False, delta, low, high, f"Adapting made search worse on your held-out "
                                                f"documents: {figures}. Keep the model you have.")
    return Verdict(False, delta, low, high, f"Adapting did not measurably help on your held-out "
                                            f"documents: {figures}. Keep the model you have.")
