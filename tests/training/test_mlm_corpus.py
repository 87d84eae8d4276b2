"""`training mlm --corpus` reads the formats the indexer reads (JSONL, .txt, CSV/TSV, Parquet)
through the same shared readers, and reports bad rows exactly as the indexer does: the same
(file, line, reason) records, the same printed lines, kept in metrics.json."""

from __future__ import annotations

import json
import logging

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from training.cli import main
from training.errors import TrainingError
from training.mlm.texts import read_documents

SENTENCES = ["The cat sat on the mat. The dog ran in the park.",
             "Stocks fell sharply today. Investors worried about rates.",
             "The team won the final. Fans filled the streets.",
             "Rain is expected tomorrow. Roads may be icy at night."] * 3


def _csv(path, delimiter=","):
    """A header, good rows, a row that is not UTF-8 and a row with one field too many."""
    rows = [f"{i}{delimiter}{t}".encode() for i, t in enumerate(SENTENCES)]
    rows.insert(2, f"x{delimiter}caf".encode() + b"\xe9")  # line 4
    rows.insert(5, f"y{delimiter}one{delimiter}two".encode())  # line 7
    path.write_bytes(b"\n".join([f"id{delimiter}body".encode(), *rows]) + b"\n")
    return path


def _parquet(path):
    """A row whose text is null (row 3) among good rows."""
    texts = [*SENTENCES[:2], None, *SENTENCES[2:]]
    pq.write_table(pa.table({"id": [str(i) for i in range(len(texts))], "body": texts}), path)
    return path


WRITERS = {"csv": _csv, "tsv": lambda p: _csv(p, "\t"), "parquet": _parquet}
SKIPPED = {
    "csv": [(4, "not UTF-8"), (7, "3 fields where the header has 2")],
    "tsv": [(4, "not UTF-8"), (7, "3 fields where the header has 2")],
    "parquet": [(3, "missing text field 'body'")],
}


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_each_format_reads_and_reports_bad_rows_as_the_indexer(fmt, tmp_path):
    from indexer import CorpusOptions, read_corpus  # the test may: training itself may not

    path = WRITERS[fmt](tmp_path / f"corpus.{fmt}")
    docs = read_documents(path, text_field="body")
    assert docs.texts == SENTENCES
    assert [(s.line, s.reason.split(" (")[0]) for s in docs.skipped] == SKIPPED[fmt]
    indexer = read_corpus(path, CorpusOptions(text_field="body"))
    assert docs.skipped == indexer.skipped  # the same records, file:line: reason
    assert docs.skipped_lines()[0].startswith(f"skipped corpus.{fmt}:{SKIPPED[fmt][0][0]}: ")


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_missing_text_column_names_the_columns_there_are(fmt, tmp_path):
    path = WRITERS[fmt](tmp_path / f"corpus.{fmt}")
    with pytest.raises(TrainingError, match=rf"no row of corpus.{fmt} has the field 'text' "
                                            r"\(text_field\); its rows have: body, id"):
        read_documents(path)  # the default text field, which these files lack


def test_an_empty_text_field_is_refused_by_name(tmp_path):
    path = _csv(tmp_path / "corpus.csv")
    with pytest.raises(TrainingError, match="--text-field ' ' is empty: name the column"):
        read_documents(path, text_field=" ")


def test_a_file_of_bad_rows_only_is_refused_with_the_first(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"id,text\n1,caf\xe9\n2,a,b\n")
    with pytest.raises(TrainingError, match=r"no usable documents in .*bad.csv: all 2 rows "
                                            r"were skipped; first: bad.csv:2: not UTF-8"):
        read_documents(path)


def test_titles_join_the_text_but_file_names_do_not(tmp_path):
    rows = tmp_path / "t.jsonl"
    rows.write_text(json.dumps({"title": "Oil", "text": "Prices rose."}) + "\n")
    assert read_documents(rows).texts == ["Oil\nPrices rose."]
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("  Just the text.\n")
    assert read_documents(folder).texts == ["Just the text."]  # not "a\nJust the text."


def test_a_txt_file_is_documents_between_blank_lines_and_other_types_are_named(tmp_path):
    txt = tmp_path / "doc.txt"
    txt.write_text("First one.\nStill first.\n\n\nSecond.\n")
    assert read_documents(txt).texts == ["First one.\nStill first.", "Second."]
    (tmp_path / "empty.txt").write_text("\n\n")
    with pytest.raises(TrainingError, match="empty.txt holds no rows"):
        read_documents(tmp_path / "empty.txt")
    (tmp_path / "n.xml").write_text("<a/>")
    with pytest.raises(TrainingError, match=r"unknown corpus type '.xml'; use .*\.csv.*\.parquet"
                                            r".*\.tsv, \.txt or a folder"):
        read_documents(tmp_path / "n.xml")


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_mlm_trains_on_each_format_and_keeps_the_skipped_rows(fmt, tiny_model_dir, tmp_path,
                                                                caplog):
    path = WRITERS[fmt](tmp_path / f"corpus.{fmt}")
    out = tmp_path / "run"
    argv = ["--threads", "1", "mlm", "--model", str(tiny_model_dir), "--corpus", str(path),
            "--text-field", "body", "--out", str(out), "--max-steps", "1", "--batch-size", "4",
            "--max-length", "32", "--max-eval", "4", "--no-progress"]
    with caplog.at_level(logging.WARNING, logger="bertscope.training"):
        assert main(argv) == 0
    corpus = json.loads((out / "metrics.json").read_text())["corpus"][0]
    assert corpus["documents"] == len(SENTENCES) and corpus["duplicates"] == 0
    assert [(s["file"], s["line"]) for s in corpus["skipped"]] == [
        (f"corpus.{fmt}", line) for line, _ in SKIPPED[fmt]]
    logged = [r.getMessage() for r in caplog.records]
    assert f"skipped corpus.{fmt}:{SKIPPED[fmt][0][0]}: {corpus['skipped'][0]['reason']}" \
        in logged
    assert f"{len(SKIPPED[fmt])} rows skipped, 0 duplicate ids (later row kept)" in logged


def test_mlm_without_the_text_column_stops_before_the_model_loads(tmp_path, capsys):
    path = _csv(tmp_path / "corpus.csv")
    argv = ["mlm", "--model", str(tmp_path / "no-model"), "--corpus", str(path),
            "--out", str(tmp_path / "run"), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error: no row of corpus.csv has the field 'text' (text_field)" in err
    assert "no-model" not in err  # refused at the corpus, not at the model
