"""The batch CLI: build / search / info / add / delete / compact / eval / default, and errors
as one line with a non-zero exit. Every command runs through `run_cli` (no traceback, ever)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


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


def test_build_search_run_eval_info(beir, tmp_path, tiny_model_dir, run_cli):
    out = tmp_path / "idx"
    built = run_cli("indexer", "build", "--corpus", beir / "corpus.jsonl", "--out", out,
                    "--model", tiny_model_dir, "--index", "flat")
    assert built.code == 0
    err = built.err
    assert "skipped corpus.jsonl:5: missing text field 'text'" in err
    assert "Building index from tokens" not in built.log + err  # bm25s' own DEBUG line
    assert json.loads((out / "manifest.json").read_text())["skipped"] == [
        {"file": "corpus.jsonl", "line": 5, "reason": "missing text field 'text'"}]

    found = run_cli("indexer", "search", out, "solar panels", "--k", "2", "--mode", "lexical")
    assert found.code == 0
    lines = found.out.strip().splitlines()
    rank, score, doc_id = lines[0].split()[:3]
    assert len(lines) == 1 and (rank, doc_id) == ("1", "c2") and float(score) > 0

    run = tmp_path / "run.trec"
    assert run_cli("indexer", "search", out, "--queries", beir / "queries.jsonl", "--k", "3",
                   "--run", run, "--mode", "hybrid").code == 0
    rows = [r.split() for r in run.read_text().splitlines()]
    assert len(rows) == 12 and all(len(r) == 6 and r[1] == "Q0" and r[5] == "bertscope"
                                   for r in rows)
    assert [r[3] for r in rows[:3]] == ["1", "2", "3"]

    scored = run_cli("indexer", "eval", out, "--beir", beir, "--split", "dev", "--mode",
                     "lexical")
    assert scored.code == 0
    assert "ndcg@10 1.0000" in scored.out and "recall@100 1.0000" in scored.out

    info = run_cli("indexer", "info", out)
    assert info.code == 0
    stats = json.loads(info.out)
    assert stats["documents"] == 4 and stats["preset"] == "flat"


def test_add_delete_compact(tmp_path, tiny_model_dir, run_cli):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"x{i}", "text": f"text {i}"}) + "\n"
                              for i in range(5)))
    out = tmp_path / "idx"
    assert run_cli("indexer", "build", "--corpus", corpus, "--out", out, "--model",
                   tiny_model_dir, "--index", "hnsw").code == 0
    more = tmp_path / "more.csv"
    more.write_text("id,text\nx0,replaced text\nx9,brand new\n")
    added = run_cli("indexer", "add", out, "--corpus", more)
    assert added.code == 0 and "added 1 new documents, replaced 1" in added.out
    assert "replaced: x0" in added.err
    assert run_cli("indexer", "delete", out, "x1", "x2").code == 0
    assert run_cli("indexer", "delete", out, "nope").code == 1
    assert run_cli("indexer", "compact", out).code == 0
    info = run_cli("indexer", "info", out)
    assert info.code == 0
    stats = json.loads(info.out)
    assert (stats["documents"], stats["tombstones"]) == (4, 0)


def test_default_is_a_no_op_when_present(flat_index, run_cli):
    before = (flat_index / "manifest.json").read_bytes()
    done = run_cli("indexer", "default", "--out", flat_index)
    assert done.code == 0 and "present" in done.out
    assert (flat_index / "manifest.json").read_bytes() == before


@pytest.mark.parametrize("argv,match", [
    (["search", "{missing}", "q"], "no index at"),
    (["search", "{index}", "   "], "query is empty"),
    (["search", "{index}", "q", "--filter", '{{"nope": 1}}'], "unknown filter field"),
    (["search", "{index}", "q", "--knob", "nprobe=4"], "does not apply"),
    (["build", "--corpus", "{missing}", "--out", "{tmp}/o"], "corpus not found"),
])
def test_errors_are_one_line_and_non_zero(argv, match, flat_index, tmp_path, run_cli):
    argv = [a.format(missing=tmp_path / "missing", index=flat_index, tmp=tmp_path) for a in argv]
    done = run_cli("indexer", *argv)
    assert done.code == 1
    err = done.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and match in err[0]


def test_real_process_exit_code(tmp_path, run_cli):
    done = run_cli("indexer", "info", tmp_path, process=True, timeout=120)
    assert done.code == 1 and done.err.strip().startswith("error: no index at")
