"""metrics.ir: hand-computed cases, pytrec_eval as the oracle."""

from __future__ import annotations

import math
import random

import pytest

from metrics import evaluate_run, mrr_at_k, ndcg_at_k, recall_at_k


def test_hand_computed_single_query():
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    qrels = {"q": {"b": 1, "c": 2, "z": 1}}
    dcg = 1 / math.log2(3) + 2 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(run, qrels, 10) == pytest.approx(dcg / idcg)
    assert recall_at_k(run, qrels, 2) == pytest.approx(1 / 3)
    assert mrr_at_k(run, qrels, 10) == pytest.approx(0.5)
    assert mrr_at_k(run, qrels, 1) == 0.0


def test_identical_ids_are_dropped_unless_asked():
    run = {"q": {"q": 9.0, "d": 1.0}}
    qrels = {"q": {"d": 1}}
    assert mrr_at_k(run, qrels, 10) == 1.0
    assert mrr_at_k(run, qrels, 10, ignore_identical_ids=False) == 0.5


def test_bad_k_is_refused():
    with pytest.raises(ValueError, match="k must be"):
        ndcg_at_k({}, {}, 0)


def _random_case(seed: int):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(300)]
    qrels, run = {}, {}
    for q in range(40):
        qid = f"q{q}"
        qrels[qid] = {d: rng.choice([0, 1, 1, 2]) for d in rng.sample(docs, rng.randint(1, 6))}
        # coarse scores so that ties happen: checks trec_eval's tie-breaking too
        run[qid] = {d: float(rng.randint(0, 50)) for d in rng.sample(docs, 150)}
        for d in rng.sample(sorted(qrels[qid]), 1):
            run[qid][d] = float(rng.randint(20, 60))
    return run, qrels


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = _random_case(seed)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100", "recip_rank"})
    ref = ev.evaluate(run)
    n = len(ref)
    ours = evaluate_run(run, qrels)
    assert ours["ndcg@10"] == pytest.approx(sum(r["ndcg_cut_10"] for r in ref.values()) / n)
    assert ours["recall@100"] == pytest.approx(sum(r["recall_100"] for r in ref.values()) / n)
    # MRR without a cut equals trec_eval's recip_rank when k covers the whole run
    assert mrr_at_k(run, qrels, 1000) == pytest.approx(
        sum(r["recip_rank"] for r in ref.values()) / n
    )
    assert 0.0 < ours["mrr@10"] <= mrr_at_k(run, qrels, 1000)
