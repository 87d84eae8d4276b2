"""The batch CLI: build / search / info / add / delete / compact / eval / default, and errors
as one line with a non-zero exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def beir(tmp_path) -> Path:
    """A tiny BEIR folder: each query's relevant document shares its words."""
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    topics = ["volcanic eruptions in iceland", "protein folding in cells",
              "solar panels on rooftops", "migration of arctic terns"]
    corpus = [{"_id": f"c{i}", "title": t.title(), "text": f"A study of {t}. " * 3}
              for i, t in enumerate(topics)]
    corpus.append({"_id": "bad"})  # a bad row: reported, not fatal
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (folder / "queries.jsonl").write_text("".join(
        json.dumps({"_id": f"q{i}", "text": t}) + "\n" for i, t in enumerate(topics)))
    (folder / "qrels" / "dev.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\tc{i}\t1\n" for i in range(4)))
    return folder


def test_build_search_run_eval_info(beir, tmp_path, tiny_model_dir, capsys):
    out = tmp_path / "idx"
    assert main(["build", "--corpus", str(beir / "corpus.jsonl"), "--out", str(out),
                 "--model", str(tiny_model_dir), "--index", "flat"]) == 0
    err = capsys.readouterr().err
    assert "skipped corpus.jsonl:5: missing text field 'text'" in err
    assert json.loads((out / "manifest.json").read_text())["skipped"] == [
        {"file": "corpus.jsonl", "line": 5, "reason": "missing text field 'text'"}]

    assert main(["search", str(out), "solar panels", "--k", "2", "--mode", "lexical"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    rank, score, doc_id = lines[0].split()[:3]
    assert len(lines) == 1 and (rank, doc_id) == ("1", "c2") and float(score) > 0

    run = tmp_path / "run.trec"
    assert main(["search", str(out), "--queries", str(beir / "queries.jsonl"), "--k", "3",
                 "--run", str(run), "--mode", "hybrid"]) == 0
    rows = [r.split() for r in run.read_text().splitlines()]
    assert len(rows) == 12 and all(len(r) == 6 and r[1] == "Q0" and r[5] == "bertscope"
                                   for r in rows)
    assert [r[3] for r in rows[:3]] == ["1", "2", "3"]

    capsys.readouterr()
    assert main(["eval", str(out), "--beir", str(beir), "--split", "dev", "--mode",
                 "lexical"]) == 0
    printed = capsys.readouterr().out
    assert "ndcg@10 1.0000" in printed and "recall@100 1.0000" in printed

    assert main(["info", str(out)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["documents"] == 4 and info["preset"] == "flat"


def test_add_delete_compact(tmp_path, tiny_model_dir, capsys):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"x{i}", "text": f"text {i}"}) + "\n"
                              for i in range(5)))
    out = tmp_path / "idx"
    assert main(["build", "--corpus", str(corpus), "--out", str(out), "--model",
                 str(tiny_model_dir), "--index", "hnsw"]) == 0
    more = tmp_path / "more.csv"
    more.write_text("id,text\nx0,replaced text\nx9,brand new\n")
    assert main(["add", str(out), "--corpus", str(more)]) == 0
    assert main(["delete", str(out), "x1", "x2"]) == 0
    assert main(["delete", str(out), "nope"]) == 1
    assert main(["compact", str(out)]) == 0
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["documents"], info["tombstones"]) == (4, 0)


def test_default_is_a_no_op_when_present(flat_index, capsys):
    before = (flat_index / "manifest.json").read_bytes()
    assert main(["default", "--out", str(flat_index)]) == 0
    assert "present" in capsys.readouterr().out
    assert (flat_index / "manifest.json").read_bytes() == before


@pytest.mark.parametrize("argv,match", [
    (["search", "{missing}", "q"], "no index at"),
    (["search", "{index}", "   "], "empty query"),
    (["search", "{index}", "q", "--k", "0"], "k must be"),
    (["search", "{index}", "q", "--filter", '{{"nope": 1}}'], "unknown filter field"),
    (["search", "{index}", "q", "--knob", "nprobe=4"], "does not apply"),
    (["build", "--corpus", "{missing}", "--out", "{tmp}/o"], "corpus not found"),
])
def test_errors_are_one_line_and_non_zero(argv, match, flat_index, tmp_path, capsys):
    argv = [a.format(missing=tmp_path / "missing", index=flat_index, tmp=tmp_path) for a in argv]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and match in err[0]


def test_real_process_exit_code(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "indexer", "info", str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().startswith("error: no index at") and "Traceback" not in done.stderr
