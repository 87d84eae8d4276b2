"""Bad input to `python -m indexer`: exit codes that tell a script what happened, messages that
name the flag, file and line, and no traceback from any command (see `run_cli`)."""

from __future__ import annotations

import json

import pytest

from indexer import SemanticIndex
from indexer.cli_args import parser


def _jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def small(tmp_path, tiny_model_dir, run_cli):
    """A flat index of two documents with a `category` field, built by the CLI."""
    corpus = _jsonl(tmp_path / "base.jsonl", [{"id": "a1", "text": "cats purr", "category": "p"},
                                              {"id": "a2", "text": "dogs bark", "category": "p"}])
    out = tmp_path / "idx"
    assert run_cli("indexer", "build", "--corpus", corpus, "--out", out, "--model",
                   tiny_model_dir, "--index", "flat").code == 0
    return out


def test_add_of_id_less_exports_with_the_same_name_keeps_both(small, tmp_path, run_cli):
    _jsonl(tmp_path / "d1" / "new.jsonl", [{"text": "alpha one"}, {"text": "beta two"}])
    _jsonl(tmp_path / "d2" / "new.jsonl", [{"text": "gamma three"}, {"text": "delta four"}])
    first = run_cli("indexer", "add", small, "--corpus", tmp_path / "d1" / "new.jsonl")
    second = run_cli("indexer", "add", small, "--corpus", tmp_path / "d2" / "new.jsonl")
    assert first.code == second.code == 0
    assert "added 2 new documents, replaced 0" in second.out
    assert len(SemanticIndex.open(small)) == 6  # yesterday: 4, the first file's rows gone


def test_add_says_which_ids_it_replaced(small, tmp_path, run_cli):
    more = _jsonl(tmp_path / "more.jsonl", [{"id": "a1", "text": "cats sleep"},
                                            {"id": "b9", "text": "birds sing"}])
    done = run_cli("indexer", "add", small, "--corpus", more)
    assert done.code == 0 and "added 1 new documents, replaced 1" in done.out
    assert "replaced: a1" in done.err


@pytest.mark.parametrize("flags,said", [
    (["--id-field", "uid"], "no row of base.jsonl has the field 'uid' (id_field)"),
    (["--metadata-fields", "categry"], "'categry' (metadata_fields)"),
    (["--text-field", "body"], "'body' (text_field)"),
])
def test_field_name_typos_are_errors(small, tmp_path, tiny_model_dir, run_cli, flags, said):
    corpus = tmp_path / "base.jsonl"
    version = SemanticIndex.open(small).stats().version
    for argv in (["build", "--corpus", corpus, "--out", tmp_path / "o", "--model",
                  tiny_model_dir], ["add", small, "--corpus", corpus]):
        done = run_cli("indexer", *argv, *flags)
        assert done.code == 1 and said in done.error, str(done)
    assert not (tmp_path / "o").exists()
    assert SemanticIndex.open(small).stats().version == version  # add changed nothing


def test_delete_exit_codes_say_what_happened(small, run_cli):
    partly = run_cli("indexer", "delete", small, "a1", "nope", "zz")
    assert partly.code == 3  # partly done, and saved
    assert "deleted 1 documents; now 1" in partly.out
    assert "not in the index (nothing to delete): nope, zz" in partly.err
    assert SemanticIndex.open(small).missing(["a1", "a2"]) == ["a1"]
    none = run_cli("indexer", "delete", small, "nope")
    assert none.code == 1 and "none of the ids is in the index, nothing deleted: nope" in none.error
    assert run_cli("indexer", "delete", small, "a2").code == 0


def test_add_with_only_bad_rows_fails_like_build(small, tmp_path, tiny_model_dir, run_cli):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "text": ""}\n{"id": "y"\n')
    added = run_cli("indexer", "add", small, "--corpus", bad)
    built = run_cli("indexer", "build", "--corpus", bad, "--out", tmp_path / "o2", "--model",
                    tiny_model_dir)
    assert added.code == built.code == 1
    assert "no usable documents" in added.error and "no usable documents" in built.error
    assert "bad.jsonl:1: empty text" in added.error


@pytest.mark.parametrize("argv,said", [
    (["build", "--corpus", "c.jsonl", "--out", "o", "--shard-size", "0"],
     "argument --shard-size: must be >= 1, got 0"),
    (["build", "--corpus", "c.jsonl", "--out", "o", "--batch-size", "-4"],
     "argument --batch-size: must be >= 1, got -4"),
    (["build", "--corpus", "c.jsonl", "--out", "o", "--overlap", "-1"],
     "argument --overlap: must be >= 0, got -1"),
    (["build", "--corpus", "c.jsonl", "--out", "o", "--threads", "0"],
     "argument --threads: must be >= 1, got 0"),
    (["search", "idx", "q", "--k", "abc"], "argument --k: 'abc' is not a whole number"),
    (["search", "idx", "q", "--k", "0"], "argument --k: must be >= 1, got 0"),
])
def test_numbers_are_refused_naming_the_flag(run_cli, argv, said):
    done = run_cli("indexer", *argv)
    assert done.code == 2 and said in done.error


@pytest.mark.parametrize("text,said", [
    ("{bad", "--filter '{bad' is not valid JSON"),
    ('["tech"]', "--filter must be a JSON object"),
])
def test_filter_that_is_not_a_json_object(small, run_cli, text, said):
    done = run_cli("indexer", "search", small, "cats", "--filter", text)
    assert done.code == 1 and said in done.error


@pytest.mark.parametrize("content,said", [
    ('{"id": "q1", "text": "cats"}\n', "q.jsonl:1: no '_id' field"),
    ('{"_id": "q1", "text": "cats"}\n{"_id": "q2", \n', "q.jsonl:2: malformed JSON"),
    ('{"_id": "q1", "query": "cats"}\n', "q.jsonl:1: no 'text' field"),
    ('{"_id": "q1", "text": ""}\n', "q.jsonl:1: no 'text' field"),
    ('["q1", "cats"]\n', "q.jsonl:1: not a JSON object (a list)"),
    ("\n", "holds no query"),
])
def test_queries_file_with_wrong_fields_or_lines(small, tmp_path, run_cli, content, said):
    queries = tmp_path / "q.jsonl"
    queries.write_text(content)
    done = run_cli("indexer", "search", small, "--queries", queries, "--mode", "lexical")
    assert done.code == 1 and said in done.error, str(done)


def test_run_file_in_a_missing_folder_fails_before_searching(small, tmp_path, run_cli):
    queries = _jsonl(tmp_path / "q.jsonl", [{"_id": "q1", "text": "cats"}])
    done = run_cli("indexer", "search", small, "--queries", queries, "--run",
                   tmp_path / "no" / "run.trec")
    assert done.code == 1 and "--run" in done.error and "does not exist" in done.error


def test_eval_names_the_bad_qrels_line(small, tmp_path, run_cli):
    beir = tmp_path / "beir"
    _jsonl(beir / "corpus.jsonl", [{"_id": "a1", "text": "cats purr"}])
    _jsonl(beir / "queries.jsonl", [{"_id": "q1", "text": "cats"}])
    (beir / "qrels").mkdir()
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\ta1\tabc\n")
    done = run_cli("indexer", "eval", small, "--beir", beir, "--mode", "lexical")
    assert done.code == 1 and "test.tsv:2: score 'abc' is not a whole number" in done.error


def _subcommands():
    sub = next(a for a in parser()._actions if a.dest == "command")
    return sorted(sub.choices.items())


@pytest.mark.parametrize("name,command", _subcommands())
def test_every_command_refuses_missing_paths_without_a_traceback(name, command, tmp_path,
                                                                 run_cli):
    """Each command, its required arguments and its --out (`default` builds into the index root
    without one) all pointing at paths that cannot exist (below a file): a new command joins
    this test by itself, and `run_cli` fails it on any traceback."""
    (tmp_path / "file").write_text("not a folder")
    missing = str(tmp_path / "file" / "missing")
    argv = [name]
    for action in command._actions:
        if action.option_strings and (action.required or action.dest == "out"):
            argv += [action.option_strings[0], missing]
        elif not action.option_strings and action.nargs in (None, "+", "?"):
            argv.append(missing)
    done = run_cli("indexer", *argv)
    assert done.code != 0 and done.error.startswith("error: ") and missing in done.error, \
        str(done)


@pytest.mark.parametrize("query", ["the of and", "?!?"])
def test_a_lexical_query_with_no_words_matches_nothing(small, run_cli, query):
    """Yesterday bm25s' own 'maximum token ID in the query' error."""
    done = run_cli("indexer", "search", small, query, "--mode", "lexical")
    assert done.code == 0 and done.out == "" and "no document matches" in done.err
    hybrid = run_cli("indexer", "search", small, query, "--mode", "hybrid")
    assert hybrid.code == 0 and hybrid.out.strip()  # the dense half still answers


@pytest.mark.parametrize("command", [["default", "--out"], ["build", "--corpus", "c.jsonl",
                                                             "--out"], ["info"]])
def test_a_url_is_no_path(run_cli, command, tmp_path, monkeypatch):
    """`default --out http://...` built BBC News into ./http:/ (a local folder named 'http:')."""
    monkeypatch.chdir(tmp_path)
    done = run_cli("indexer", *command, "http://example.com/idx")
    assert done.code == 1 and "is a URL; pass" in done.error
    assert not (tmp_path / "http:").exists()


@pytest.mark.parametrize("value", ["", " "])
def test_default_with_an_empty_out_is_refused(run_cli, value, tmp_path, monkeypatch):
    """`default --out ""` built BBC News into the default folder, as if --out were not given."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(tmp_path / "root"))
    done = run_cli("indexer", "default", "--out", value)
    assert done.code == 1 and "--out is empty" in done.error
    assert not (tmp_path / "root").exists()


def test_an_os_error_names_the_path_not_the_errno(small, run_cli, monkeypatch):
    """Yesterday: `error: [Errno 13] Permission denied: '...'` (Python's repr, not a sentence)."""
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(small / "manifest.json"))

    monkeypatch.setattr(SemanticIndex, "open", refuse)
    done = run_cli("indexer", "info", small)
    assert done.code == 1 and done.error == f"error: {small}/manifest.json: Permission denied"


def test_the_build_bar_counts_chunks_inside_one_document(capsys):
    """Yesterday the bar counted documents: "0/1 doc, ETA ?" for minutes on one huge line."""
    from indexer.build import BuildProgress
    from indexer.cli_progress import StageBar

    bar = StageBar()
    for chunks in (0, 40, 120):
        bar(BuildProgress("encode", 0, 1, 0.0, 30.0, 0, chunks, 300))
    err = capsys.readouterr().err
    assert "120/300" in err and "chunk" in err and "0/1 docs" in err


@pytest.mark.parametrize("inside", ["manifest.json", "new/corpus.jsonl", "."])
def test_export_never_writes_into_the_index_it_reads(small, run_cli, inside):
    """`export --out IDX/manifest.json` replaced the manifest with the corpus (exit 0), and
    every later open of the index failed as damaged."""
    target = small / inside
    done = run_cli("indexer", "export", small, "--out", target)
    assert done.code == 1 and "own files" in done.err, done.err
    assert len(SemanticIndex.open(small)) == 2


def test_export_never_writes_over_a_milvus_lite_file(small, tmp_path, run_cli):
    pytest.importorskip("milvus_lite")
    db = tmp_path / "m.db"
    address = f"milvus://{db}?collection=idx"
    assert run_cli("indexer", "migrate", small, address).code == 0
    done = run_cli("indexer", "export", address, "--out", db)
    assert done.code == 1 and "own files" in done.err, done.err
    assert len(SemanticIndex.open(address)) == 2
