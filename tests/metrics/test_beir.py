"""metrics.beir: BEIR folders read into corpus, judged queries and qrels."""

from __future__ import annotations

import json

import pytest

from metrics import load_beir


def _write_beir(folder, qrels_lines):
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(
        "\n".join(json.dumps(r) for r in [
            {"_id": "1", "title": "T1", "text": "one"},
            {"_id": "2", "text": "two"},
        ]) + "\n", encoding="utf-8")
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": f"q{q}"}) + "\n" for q in "ab"), encoding="utf-8")
    (folder / "qrels" / "dev.tsv").write_text("\n".join(qrels_lines) + "\n", encoding="utf-8")


def test_load_beir_keeps_only_judged_queries(tmp_path):
    _write_beir(tmp_path, ["query-id\tcorpus-id\tscore", "a\t2\t1"])
    corpus, queries, qrels = load_beir(tmp_path, "dev")
    assert corpus == {"1": {"title": "T1", "text": "one"}, "2": {"title": "", "text": "two"}}
    assert queries == {"a": "qa"}
    assert qrels == {"a": {"2": 1}}


def test_load_beir_unknown_split_names_valid_ones(tmp_path):
    _write_beir(tmp_path, ["query-id\tcorpus-id\tscore", "a\t2\t1"])
    with pytest.raises(FileNotFoundError, match="Valid splits: dev"):
        load_beir(tmp_path, "test")


def test_load_shared_scifact(shared_data):
    corpus, queries, qrels = load_beir(shared_data / "scifact", "train")
    assert len(corpus) == 5183
    assert len(queries) == len(qrels) == 809
    assert sum(len(v) for v in qrels.values()) == 919
