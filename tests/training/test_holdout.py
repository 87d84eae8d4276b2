"""Held-out parts: pairs that share a sentence stay together, sizes are met, the split is
deterministic and written with the source line numbers of every part."""

from __future__ import annotations

import json

import pytest

from training import TrainingError
from training.holdout import HoldoutSpec, group_pairs, materialise, split_rows


def pairs(n: int) -> list[dict]:
    # pairs i and i+1 share "q{i+1}" for even i: groups of two pairs, plus singletons past n//2
    rows = []
    for i in range(n):
        a = f"q{i}" if i % 2 == 0 else f"q{i - 1}"
        rows.append({"sentence1": a, "sentence2": f"s{i}", "score": i % 2})
    return rows


def test_groups_join_pairs_that_share_either_sentence():
    rows = [{"sentence1": "a", "sentence2": "b"}, {"sentence1": "c", "sentence2": "b"},
            {"sentence1": "d", "sentence2": "e"}, {"sentence1": "e ", "sentence2": "a"}]
    assert sorted(sorted(g) for g in group_pairs(rows)) == [[0, 1, 2, 3]]  # via b, then e/a
    rows[3]["sentence2"] = "z"
    assert sorted(sorted(g) for g in group_pairs(rows)) == [[0, 1], [2, 3]]


def test_no_sentence_on_both_sides_and_sizes_met():
    rows = pairs(100)
    parts = split_rows(rows, HoldoutSpec(seed=3, sizes={"select": 10, "heldout": 20}))
    assert sorted(i for ix in parts.values() for i in ix) == list(range(100))
    assert 10 <= len(parts["select"]) <= 11 and 20 <= len(parts["heldout"]) <= 21
    sentences = {p: {rows[i][c] for i in ix for c in ("sentence1", "sentence2")}
                 for p, ix in parts.items()}
    assert not sentences["train"] & sentences["heldout"]
    assert not sentences["train"] & sentences["select"]
    again = split_rows(rows, HoldoutSpec(seed=3, sizes={"select": 10, "heldout": 20}))
    assert again == parts
    other = split_rows(rows, HoldoutSpec(seed=4, sizes={"select": 10, "heldout": 20}))
    assert other["heldout"] != parts["heldout"]


def test_too_large_a_holdout_is_refused():
    with pytest.raises(TrainingError, match="ask for 100 pairs but the file has 100"):
        split_rows(pairs(100), HoldoutSpec(0, {"heldout": 100}))


def test_materialised_parts_and_their_record(tmp_path):
    source = tmp_path / "lcqmc" / "dev.jsonl"
    source.parent.mkdir()
    rows = pairs(50)
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    files = materialise(source, HoldoutSpec(7, {"heldout": 10}), tmp_path / "cache")
    assert set(files) == {"train", "select", "heldout"}
    got = {p: [json.loads(x) for x in f.read_text().splitlines()] for p, f in files.items()}
    assert len(got["train"]) + len(got["heldout"]) == 50 and got["select"] == []
    record = json.loads((files["train"].parent / "split.json").read_text())
    assert record["seed"] == 7 and record["parts"]["heldout"]["pairs"] == len(got["heldout"])
    lines = record["parts"]["heldout"]["lines"]
    assert [rows[n - 1] for n in lines] == got["heldout"]  # 1-based source line numbers
    assert materialise(source, HoldoutSpec(7, {"heldout": 10}), tmp_path / "cache") == files


def _repeating(n_pairs: int, sentences: int, step: int) -> list[dict]:
    """Scored pairs over few sentences, each in several pairs (a newcomer's uploaded file)."""
    return [{"sentence1": f"sentence {i % sentences}",
             "sentence2": f"sentence {(i + step) % sentences}", "score": i % 5}
            for i in range(n_pairs)]


def test_a_file_whose_pairs_all_share_sentences_is_refused_before_training(tmp_path):
    """Issue 52: 60 scored pairs over 20 repeated sentences form one connected group; the split
    gave it all to the dev set and the run failed 18 s in with "train.jsonl: no rows"."""
    from training.run_plan import dev_split_sizes

    source = tmp_path / "upload.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in _repeating(60, 20, 3)))
    with pytest.raises(TrainingError, match="form 1 connected group, the largest of 60 pairs"):
        dev_split_sizes(source, 12, cache=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()  # worked out, nothing written


def test_a_large_group_dealt_first_no_longer_takes_the_whole_file(tmp_path):
    """Groups of 50, 5, 3 and 2 pairs and 12 asked: whichever order the seed deals them in,
    training keeps its rows and the dev set gets the groups that fit."""
    from training.run_plan import dev_split_sizes

    rows = (_repeating(50, 10, 1) + [{**r, "sentence1": "b" + r["sentence1"],
                                      "sentence2": "b" + r["sentence2"]}
                                     for r in _repeating(5, 5, 1)]
            + [{**r, "sentence1": "c" + r["sentence1"], "sentence2": "c" + r["sentence2"]}
               for r in _repeating(3, 3, 1)]
            + [{**r, "sentence1": "d" + r["sentence1"], "sentence2": "d" + r["sentence2"]}
               for r in _repeating(2, 2, 1)])
    assert sorted(map(len, group_pairs(rows))) == [2, 3, 5, 50]
    for seed in range(8):
        parts = split_rows(rows, HoldoutSpec(seed, {"select": 12}))
        assert len(parts["train"]) >= 50 and 1 <= len(parts["select"]) <= 12, seed
    source = tmp_path / "upload.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert dev_split_sizes(source, 12, cache=tmp_path / "cache") == (50, 10)
