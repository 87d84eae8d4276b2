"""The cross-validated retrieval recipe on a tiny BEIR folder and the tiny random BERT: every
query is scored by the model of the fold that held it out; hard negatives are BM25's, never a
relevant document (that training imports no indexer module: test_no_indexer.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.beir_triplets import Bm25, assign_folds, mine_triplets
from training.cli import main

TOPICS = ["heart", "lung", "brain", "liver", "bone", "skin"]


def tiny_beir(folder):
    (folder / "qrels").mkdir(parents=True)
    corpus, queries, qrels = [], [], ["query-id\tcorpus-id\tscore"]
    for i, topic in enumerate(TOPICS):
        for j in range(2):
            corpus.append({"_id": f"d{i}{j}", "title": f"{topic} study {j}",
                           "text": f"The {topic} cells respond to treatment {j} in mice."})
        queries.append({"_id": f"q{i}", "text": f"{topic} cells respond to treatment"})
        qrels.append(f"q{i}\td{i}0\t1")
    for name, rows in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "qrels" / "train.tsv").write_text("\n".join(qrels) + "\n")
    return folder


def test_folds_are_even_and_seeded():
    folds = assign_folds([f"q{i}" for i in range(10)], 3, seed=1)
    assert sorted(list(folds.values()).count(k) for k in range(3)) == [3, 3, 4]
    assert folds == assign_folds([f"q{i}" for i in reversed(range(10))], 3, seed=1)


def test_hard_negatives_come_from_bm25_and_are_never_relevant(tmp_path):
    from metrics import load_beir

    corpus, queries, qrels = load_beir(tiny_beir(tmp_path / "beir"), "train")
    bm25 = Bm25(corpus)
    assert [d for d, _ in bm25.search([queries["q0"]], 2)[0]] == ["d00", "d01"]
    rows = mine_triplets(corpus, queries, qrels, ["q0", "q1"], bm25, per_query=1, depth=2,
                         skip=0, seed=0)
    assert len(rows) == 2
    assert rows[0]["positive"].startswith("heart study 0")
    assert rows[0]["negative"].startswith("heart study 1")  # BM25's best non-relevant hit
    rows = mine_triplets(corpus, queries, qrels, ["q0"], bm25, per_query=3, depth=12, seed=0)
    assert len({r["negative"] for r in rows}) == 3  # drawn from the top 12, none relevant
    assert not any(r["negative"].startswith("heart study 0") for r in rows)
    skipped = mine_triplets(corpus, queries, qrels, ["q0"], bm25, depth=12, skip=1)
    assert not skipped[0]["negative"].startswith(("heart study 0", "heart study 1"))


def cv_recipe(tmp_path, model_dir, max_length: int, **cv) -> tuple[dict, Path, list[str]]:
    """A tiny BEIR folder, a cross-validation recipe over it (written), and the `fit` argv."""
    root = tmp_path / "data"
    tiny_beir(root / "beir")
    recipe = {
        "recipe": "tiny-cv", "model": str(model_dir), "max_length": max_length, "batch_size": 4,
        "cross_validation": {"beir": "beir", "folds": 2, "negatives": {"depth": 4}, **cv},
        "stages": [{"train": ["cv:train"], "loss": "mnrl"}],
    }
    path = tmp_path / "r.json"
    path.write_text(json.dumps(recipe))
    argv = ["fit", "--config", str(path), "--data", str(root), "--out", str(tmp_path / "cv"),
            "--no-progress"]
    return recipe, path, argv


@pytest.mark.slow
def test_cross_validated_recipe_end_to_end(tiny_model_dir, tmp_path, capsys):
    _, _, argv = cv_recipe(tmp_path, tiny_model_dir, 32, seed=3, final=True)
    out = tmp_path / "cv"
    assert main(argv) == 0
    assert "2-fold cross-validated dense retrieval on 6 train queries" in capsys.readouterr().out
    record = json.loads((out / "crossval.json").read_text())
    held = record["queries"]
    assert sorted(held["0"] + held["1"]) == [f"q{i}" for i in range(6)]
    for k in ("0", "1"):
        run = json.loads((out / f"fold-{k}" / "cv_run.json").read_text())
        assert sorted(run) == sorted(held[k])  # each fold scores only its own queries
        trained_on = {json.loads(x)["anchor"] for x in
                      (out / "triplets" / f"fold-{k}.jsonl").read_text().splitlines()}
        assert trained_on == {f"{TOPICS[int(q[1:])]} cells respond to treatment"
                              for q in held[str(1 - int(k))]}
        assert len(run[held[k][0]]) == 12  # the whole corpus ranked (top 100 of 12)
    assert set(record["pooled"]) == {"ndcg@10", "recall@100", "mrr@10"}
    assert record["max_length"] == 32  # what bench/scifact_cv.py cuts the baseline's texts at
    assert (out / "final" / "metrics.json").is_file()
    assert main(argv) == 2  # a finished run is not overwritten without --resume



def test_documents_are_searched_at_the_recipes_search_length(tiny_model_dir, tmp_path, capsys,
                                                             monkeypatch):
    import training.crossval as crossval

    lengths = []
    real = crossval.dense_run

    def spy(model, corpus, queries, **kw):
        lengths.append(kw.get("max_length"))
        return real(model, corpus, queries, **kw)

    monkeypatch.setattr(crossval, "dense_run", spy)
    recipe, path, argv = cv_recipe(tmp_path, tiny_model_dir, 16, final=False,
                                   search_max_length=24)
    out = tmp_path / "cv"
    assert main(argv) == 0
    assert lengths == [24, 24]  # trained at 16 tokens, searched at 24
    record = json.loads((out / "crossval.json").read_text())
    assert (record["train_max_length"], record["max_length"]) == (16, 24)
    recipe["cross_validation"]["search_max_length"] = 32  # resuming must not mix two lengths
    path.write_text(json.dumps(recipe))
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 2
    assert "searched documents cut at 24 tokens, this recipe at 32" in capsys.readouterr().err
