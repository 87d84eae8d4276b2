"""bench/kit/fusion_cv.py: choosing BM25's parameters and fusion weights on the *other* folds."""

from __future__ import annotations

from bench.kit.fusion_cv import cross_validate, cross_validate_configs, folds_of, simplex

QIDS = [f"q{i}" for i in range(20)]
QRELS = {q: {f"{q}-rel": 1} for q in QIDS}


def run_with_relevant_at(rank_of: dict[str, int]) -> dict[str, dict[str, float]]:
    """Each query's list: ten documents, its relevant one at `rank_of[q]` (0 = first)."""
    run = {}
    for q in QIDS:
        docs = [f"{q}-other{j}" for j in range(9)]
        docs.insert(rank_of[q], f"{q}-rel")
        run[q] = {d: 10.0 - i for i, d in enumerate(docs)}
    return run


def test_a_fold_never_chooses_with_its_own_queries():
    """"tuned-here" wins fold 0's queries by far and loses a little on three others: over all
    queries it is the best, but fold 0 must choose "good", the best on the *other* folds."""
    fold = folds_of(QIDS, 5, 15)
    here = [q for q in QIDS if fold[q] == 0]
    elsewhere = [q for q in QIDS if fold[q] != 0]
    configs = {
        "good": [run_with_relevant_at({q: 9 if q in here else 0 for q in QIDS})],
        "tuned-here": [run_with_relevant_at(
            {q: 0 if q in here else 1 if q in elsewhere[:3] else 0 for q in QIDS})],
    }
    res = cross_validate_configs(configs, QRELS, "zscore", [(1.0,)], folds=5, seed=15)
    assert res["in_sample"][0] == "tuned-here"
    assert res["chosen"][0][0] == "good"
    # fold 0's queries were scored with "good": their relevant document sits at rank 10
    assert all(max(res["run"][q], key=res["run"][q].get) != f"{q}-rel" for q in here)


def test_one_config_is_the_plain_weight_search():
    """`cross_validate` over two runs is the one-config case: same weights, same scores."""
    bm25 = run_with_relevant_at({q: i % 3 for i, q in enumerate(QIDS)})
    dense = run_with_relevant_at({q: (i + 1) % 4 for i, q in enumerate(QIDS)})
    grid = simplex(2, 0.25)
    plain = cross_validate([bm25, dense], QRELS, "minmax", grid, folds=4, seed=3)
    configs = cross_validate_configs({"only": [bm25, dense]}, QRELS, "minmax", grid, folds=4,
                                     seed=3)
    assert plain["scores"] == configs["scores"]
    assert plain["weights"] == {k: w for k, (_, w) in configs["chosen"].items()}
    assert {name for name, _ in configs["chosen"].values()} == {"only"}
