"""The evaluators reproduce hand-computed Spearman and nDCG/MRR on tiny fixtures."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from training import evaluate_sts, load_pairs
from training.evaluate import evaluate_beir, evaluate_model, search_run


def _cosines(enc, a: list[str], b: list[str]) -> np.ndarray:
    return (enc.encode(a) * enc.encode(b)).sum(axis=1)


def test_spearman_and_pearson_match_a_hand_computation(tiny_torch, tmp_path, jsonl):
    """evaluate_sts scores the torch model (what training evaluates), so the oracle's cosines
    come from the torch backend too: an export's (int8) cosines rank differently."""
    s1 = ["a red car", "the cat sleeps", "rain in spring", "two men run", "a blue sea", "old books"]
    s2 = ["a fast car", "a dog barks", "snow in winter", "women walk", "the green hill", "new pens"]
    cos = _cosines(tiny_torch, s1, s2)
    assert len(set(np.round(cos, 6))) == 6  # no ties, so ranks are unambiguous
    # Gold ranks = cosine ranks with the two lowest swapped: sum d^2 = 2, n = 6,
    # Spearman = 1 - 6 * 2 / (6 * (36 - 1)) = 1 - 2/35.
    ranks = np.argsort(np.argsort(cos))  # 0 = lowest cosine
    gold = ranks.astype(float)
    low, second = np.where(ranks == 0)[0][0], np.where(ranks == 1)[0][0]
    gold[low], gold[second] = 1.0, 0.0
    path = jsonl(
        tmp_path / "sts.jsonl",
        [
            {"sentence1": a, "sentence2": b, "score": g}
            for a, b, g in zip(s1, s2, gold, strict=True)
        ],
    )
    result = evaluate_sts(tiny_torch.model, load_pairs(path))
    assert result.spearman == pytest.approx(100 * (1 - 2 / 35), abs=1e-6)
    x, y = cos - cos.mean(), gold - gold.mean()
    pearson = (x * y).sum() / math.sqrt((x * x).sum() * (y * y).sum())
    assert result.pearson == pytest.approx(100 * pearson, abs=1e-3)


def test_binary_sets_correlate_with_the_label(tiny_torch, tmp_path, jsonl):
    s1, s2 = ["a b", "c d", "e f", "g h"], ["a c", "d e", "f g", "h a"]
    cos = _cosines(tiny_torch, s1, s2)
    labels = (cos >= np.median(cos)).astype(int)  # the two highest cosines are the positives
    path = jsonl(
        tmp_path / "bin.jsonl",
        [
            {"sentence1": a, "sentence2": b, "score": int(g)}
            for a, b, g in zip(s1, s2, labels, strict=True)
        ],
    )
    data = load_pairs(path)
    assert data.kind == "binary"
    # ranks of cos: 1..4; labels tie-ranked 1.5, 1.5, 3.5, 3.5 -> Spearman = 2/sqrt(5)
    assert evaluate_sts(tiny_torch.model, data).spearman == pytest.approx(
        100 * 2 / math.sqrt(5), abs=1e-6
    )


def _beir(folder, corpus: dict[str, str], queries: dict[str, str], qrels: list[tuple[str, str]]):
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n" for i, t in corpus.items())
    )
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": i, "text": t}) + "\n" for i, t in queries.items())
    )
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in qrels)
    )


def test_ndcg_and_mrr_match_a_hand_computation(tiny_encoder, tmp_path):
    corpus = {
        f"d{i}": t
        for i, t in enumerate(
            [
                "apples and pears",
                "a train station",
                "stock markets fell",
                "a quiet river",
                "old maps",
            ]
        )
    }
    queries = {"q1": "fruit in autumn", "q2": "trading on wall street"}
    ids = list(corpus)
    docs = tiny_encoder.encode(list(corpus.values()), prompt="passage")
    qs = tiny_encoder.encode(list(queries.values()), prompt="query")
    order = np.argsort(-(qs @ docs.T), axis=1)  # the model's own ranking
    # q1's relevant document is the model's 2nd hit, q2's its 1st:
    # nDCG@10 = (1/log2(3) + 1) / 2, MRR@10 = (1/2 + 1) / 2, Recall@100 = 1.
    _beir(tmp_path / "beir", corpus, queries, [("q1", ids[order[0, 1]]), ("q2", ids[order[1, 0]])])
    scores = evaluate_beir(tiny_encoder, tmp_path / "beir", "test")
    assert scores["ndcg@10"] == pytest.approx((1 / math.log2(3) + 1) / 2)
    assert scores["mrr@10"] == pytest.approx(0.75)
    assert scores["recall@100"] == pytest.approx(1.0)
    assert (scores["queries"], scores["documents"]) == (2, 5)


def test_search_run_keeps_the_top_k_by_inner_product():
    q = np.array([[1.0, 0.0]])
    d = np.array([[0.1, 1.0], [0.9, 0.1], [0.5, 0.5]])
    run = search_run(q, d, ["q"], ["a", "b", "c"], k=2)
    assert run == {"q": {"b": pytest.approx(0.9), "c": pytest.approx(0.5)}}


def test_evaluate_model_prints_each_set(tiny_model_dir, sts_file, tmp_path):
    _beir(tmp_path / "b", {"d1": "x y", "d2": "z w"}, {"q": "x"}, [("q", "d1")])
    results = evaluate_model(tiny_model_dir, sts=[str(sts_file)], beir=tmp_path / "b", split="test")
    lines = results.lines()
    assert "Spearman" in lines[0] and "(6 scored pairs)" in lines[0]
    assert "nDCG@10" in lines[1] and "[test]" in lines[1]
    assert json.loads(json.dumps(results.to_dict()))["beir"]["queries"] == 1


def test_a_misspelled_prompt_is_refused_before_any_model_loads(tiny_encoder, sts_file, tmp_path):
    from training import FitConfig, Stage, TrainingError, fit

    with pytest.raises(TrainingError, match="Invalid prompt 'qurey'. Valid: None, query, passage"):
        evaluate_sts(tiny_encoder.model, load_pairs(sts_file), prompt="qurey")
    with pytest.raises(TrainingError, match="Invalid prompt 'qurey'"):
        evaluate_model("no-such-model", sts=[str(sts_file)], prompt="qurey")
    config = FitConfig(model="no-such-model", stages=(Stage((str(sts_file),), "cosine"),),
                       out=str(tmp_path / "run"), prompt="qurey")
    with pytest.raises(TrainingError, match="--prompt: Invalid prompt 'qurey'"):
        fit(config)
    assert not (tmp_path / "run").exists()
