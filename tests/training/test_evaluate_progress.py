"""`training evaluate` runs for minutes on large sets: it shows tqdm progress unless told not to."""

from __future__ import annotations

import json

from training.cli import main


def test_evaluate_shows_progress(tiny_model_dir, sts_file, tmp_path, capsys):
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text(json.dumps({"_id": "d1", "title": "t", "text": "x"}) + "\n")
    (beir / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "x"}) + "\n")
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    assert main(["evaluate", str(tiny_model_dir), "--sts", str(sts_file), "--beir", str(beir)]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("Batches") >= 4  # both sides of the pairs, documents, queries
    assert "Spearman" in captured.out and "nDCG@10 1.0000" in captured.out
    assert main(["evaluate", str(tiny_model_dir), "--sts", str(sts_file), "--no-progress"]) == 0
    assert "Batches" not in capsys.readouterr().err
