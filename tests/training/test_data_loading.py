"""Loading each file format, guessing the kind, and reporting each kind of bad row."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from training import BadRow, TrainingError, load_pairs
from training.data import NLI_LABELS

PAIRS = [("A man sings.", "A person sings.", 4.5), ("A dog barks.", "A car drives.", 0.5)]


def _frame() -> pd.DataFrame:
    return pd.DataFrame(PAIRS, columns=["sentence1", "sentence2", "score"])


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".tsv", ".parquet"])
def test_each_format_loads_the_same_rows(tmp_path, suffix):
    path = tmp_path / f"pairs{suffix}"
    frame = _frame()
    if suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True, force_ascii=False)
    elif suffix == ".parquet":
        frame.to_parquet(path)
    else:
        frame.to_csv(path, sep="\t" if suffix == ".tsv" else ",", index=False)
    data = load_pairs(path)
    assert data.kind == "scored"
    assert data.bad_rows == []
    got = list(
        zip(
            data.dataset["sentence1"], data.dataset["sentence2"], data.dataset["score"], strict=True
        )
    )
    assert got == PAIRS


def test_kinds_are_guessed(tmp_path, jsonl, sts_file, nli_file):
    binary = jsonl(
        tmp_path / "b.jsonl",
        [
            {"sentence1": "花呗怎么还款", "sentence2": "花呗如何还钱", "score": 1},
            {"sentence1": "借呗额度", "sentence2": "今天天气", "score": 0},
        ],
    )
    assert load_pairs(sts_file).kind == "scored"
    assert load_pairs(binary).kind == "binary"
    nli = load_pairs(nli_file)
    assert nli.kind == "nli"
    assert set(nli.dataset["label"]) == set(NLI_LABELS)


def test_column_aliases_are_accepted(tmp_path):
    path = tmp_path / "aliases.csv"
    pd.DataFrame({"text1": ["a b"], "text2": ["c d"], "label": [3.0]}).to_csv(path, index=False)
    data = load_pairs(path)
    assert data.dataset.column_names == ["sentence1", "sentence2", "score"]
    assert data.dataset["score"] == [3.0]


def test_bad_pair_rows_are_reported_with_their_line(tmp_path, jsonl):
    good = {"sentence1": "ok one", "sentence2": "ok two", "score": 3.0}
    path = jsonl(
        tmp_path / "bad.jsonl",
        [
            good,  # line 1
            {"sentence2": "no first sentence", "score": 1.0},  # 2 missing field
            {"sentence1": "  ", "sentence2": "blank first", "score": 1.0},  # 3 empty text
            {"sentence1": "a", "sentence2": "b", "score": "high"},  # 4 not a number
            {"sentence1": "a", "sentence2": "b", "score": 7.5},  # 5 out of range
            {"sentence1": "a", "sentence2": "b"},  # 6 missing score
            '{"sentence1": "broken',  # 7 invalid JSON
            "[1, 2]",  # 8 not an object
            {"sentence1": "a", "sentence2": 12, "score": 1.0},  # 9 not text
            {"sentence1": "a", "sentence2": "b", "score": float("nan")},  # 10 NaN
            good,  # 11
        ],
    )
    data = load_pairs(path)
    assert len(data) == 2
    reasons = {b.row: b.reason for b in data.bad_rows}
    assert sorted(reasons) == [2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert "missing sentence1" in reasons[2]
    assert "empty sentence1" in reasons[3]
    assert "not a number" in reasons[4]
    assert "outside 0-5" in reasons[5]
    assert "missing score" in reasons[6]
    assert "malformed JSON" in reasons[7]
    assert "not a JSON object" in reasons[8]
    assert "not text" in reasons[9]
    assert "score" in reasons[10]
    assert "9 bad rows skipped" in data.summary()
    assert data.report()["bad_rows"][0] == {"row": 2, "reason": reasons[2]}


def test_bad_csv_rows_are_reported_too(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("sentence1,sentence2,score\nok,fine,2.5\nok,,2.0\nok,fine,abc\nok,fine,-1\n")
    data = load_pairs(path)
    assert len(data) == 1
    assert [b.row for b in data.bad_rows] == [2, 3, 4]


def test_binary_rows_must_be_zero_or_one(tmp_path, jsonl):
    path = jsonl(
        tmp_path / "b.jsonl",
        [
            {"sentence1": "a", "sentence2": "b", "score": 1},
            {"sentence1": "a", "sentence2": "c", "score": 0},
            {"sentence1": "a", "sentence2": "d", "score": 0.5},
        ],
    )
    data = load_pairs(path, kind="binary")
    assert len(data) == 2
    assert data.bad_rows == [BadRow(3, "score 0.5 is not 0 or 1")]


def test_bad_nli_rows_are_reported(tmp_path, jsonl):
    path = jsonl(
        tmp_path / "n.jsonl",
        [
            {"premise": "p", "hypothesis": "h", "label": "entailment"},
            {"premise": "p", "hypothesis": "h", "label": "maybe"},
            {"premise": "p", "hypothesis": "h", "label": -1},  # SNLI: no gold label
            {"premise": "", "hypothesis": "h", "label": "neutral"},
            {"premise": "p", "hypothesis": "h"},
            {"premise": "p", "hypothesis": "h2", "label": 2},  # SNLI id for contradiction
        ],
    )
    data = load_pairs(path)
    assert data.dataset["label"] == ["entailment", "contradiction"]
    reasons = [b.reason for b in data.bad_rows]
    assert [b.row for b in data.bad_rows] == [2, 3, 4, 5]
    assert "'maybe' is not one of" in reasons[0]
    assert "-1" in reasons[1]
    assert "empty premise" in reasons[2]
    assert "missing label" in reasons[3]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"a": "x", "b": "y"}\n', "needs a 'sentence1' column"),
        ('{"sentence1": "x", "sentence2": "y", "score": 9}\n', "no valid scored rows"),
        ("", "no rows"),
    ],
)
def test_unusable_files_stop_with_one_clear_error(tmp_path, content, message):
    path = tmp_path / "f.jsonl"
    path.write_text(content)
    with pytest.raises(TrainingError, match=message):
        load_pairs(path)


@pytest.mark.slow
def test_unknown_suffix_and_missing_hub_name(tmp_path, monkeypatch):
    """The hub is asked in offline mode: the same message, without ~20 s of network retries
    on a machine with no network."""
    import datasets
    import huggingface_hub.constants

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    odd = tmp_path / "pairs.xlsx"
    odd.write_text("x")
    with pytest.raises(TrainingError, match="unknown file type"):
        load_pairs(odd)
    with pytest.raises(TrainingError, match="nowhere.jsonl not found"):  # a file, no hub lookup
        load_pairs(str(tmp_path / "nowhere.jsonl"))
    with pytest.raises(TrainingError, match="not a local file"):
        load_pairs("no-such-org-bertscope/no-such-set")


def test_real_shared_files_load_cleanly(shared_data):
    dev = load_pairs(shared_data / "stsb-en" / "dev.jsonl")
    assert (dev.kind, len(dev), dev.bad_rows) == ("scored", 1500, [])
    assert load_pairs(shared_data / "lcqmc" / "dev.jsonl").kind == "binary"


def test_rows_with_nothing_visible_are_bad_rows_not_pairs(tmp_path):
    """Zero-width, BOM or control characters alone tokenise to [CLS] [SEP]: no sentence."""
    rows = [{"sentence1": "a cat", "sentence2": "a dog", "score": 0.5},
            {"sentence1": "\u200b\ufeff", "sentence2": "a dog", "score": 0.5},
            {"sentence1": "rain", "sentence2": "\x00\x07", "score": 0.1},
            {"sentence1": "sun", "sentence2": "snow", "score": 0.2}]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data = load_pairs(path)
    assert len(data) == 2
    assert [(b.row, b.reason.split(" (")[0]) for b in data.bad_rows] == \
        [(2, "empty sentence1"), (3, "empty sentence2")]
