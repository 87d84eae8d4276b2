"""Every corpus reader, and the bad-row report (file, line, reason) — nothing dropped silently."""

from __future__ import annotations

import json

import pytest

from indexer import CorpusError, CorpusOptions, read_corpus


def test_jsonl_reports_every_bad_row(tmp_path):
    path = tmp_path / "c.jsonl"
    lines = [
        json.dumps({"id": "a", "text": "alpha", "title": "A", "lang": "en", "n": 3}).encode(),
        b'{"id": "b", "text": ',  # malformed JSON
        json.dumps({"id": "c"}).encode(),  # missing text
        json.dumps({"id": "d", "text": "   "}).encode(),  # empty text
        b'{"id": "e", "text": "caf\xe9"}',  # Latin-1 byte: not UTF-8
        json.dumps({"id": "a", "text": "alpha again"}).encode(),  # duplicate: later wins
        json.dumps({"text": "no id here"}).encode(),  # generated stable id
        json.dumps([1, 2]).encode(),  # not an object
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    report = read_corpus(path)
    assert [(s.file, s.line) for s in report.skipped] == [
        ("c.jsonl", 2), ("c.jsonl", 3), ("c.jsonl", 4), ("c.jsonl", 5), ("c.jsonl", 8)]
    reasons = [s.reason for s in report.skipped]
    assert "malformed JSON" in reasons[0] and "missing text" in reasons[1]
    assert reasons[2] == "empty text" and "not UTF-8" in reasons[3]
    assert report.duplicates == 1 and report.rows == 5
    by_id = {d.id: d for d in report.documents}
    generated = [d for d in report.documents if d.id.startswith("auto-")]
    assert by_id["a"].text == "alpha again" and [d.text for d in generated] == ["no id here"]
    assert read_corpus(path).documents == report.documents  # generated ids are stable
    with pytest.raises(CorpusError, match=r"c.jsonl:2: malformed JSON"):
        read_corpus(path, CorpusOptions(on_error="fail"))


def test_jsonl_metadata_fields(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"_id": "x", "text": "t", "title": "T", "lang": "en", "n": 2,
                                "nested": {"no": 1}}) + "\n", encoding="utf-8")
    doc = read_corpus(path).documents[0]
    assert (doc.id, doc.title, doc.metadata) == ("x", "T", {"lang": "en", "n": 2})
    doc = read_corpus(path, CorpusOptions(metadata_fields=("n",))).documents[0]
    assert doc.metadata == {"n": 2}


@pytest.mark.parametrize("sep,ext", [(",", "csv"), ("\t", "tsv")])
def test_delimited(tmp_path, sep, ext):
    path = tmp_path / f"c.{ext}"
    rows = [["doc", "body", "label"], ["1", "first, quoted" if sep == "\t" else '"first, quoted"',
                                       "x"], ["2", "", "y"], ["3", "third", "z", "extra"]]
    path.write_text("\n".join(sep.join(r) for r in rows) + "\n", encoding="utf-8")
    report = read_corpus(path, CorpusOptions(id_field="doc", text_field="body"))
    assert [(d.id, d.text, d.metadata) for d in report.documents] == [
        ("1", "first, quoted", {"label": "x"})]
    assert [(s.line, s.reason) for s in report.skipped] == [
        (3, "empty text"), (4, "4 fields where the header has 3")]


def test_parquet(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "c.parquet"
    pd.DataFrame({"id": ["p1", "p2"], "text": ["one", None], "year": [2001, 2002]}).to_parquet(path)
    report = read_corpus(path)
    assert [(d.id, d.metadata) for d in report.documents] == [("p1", {"year": 2001})]
    assert [(s.file, s.line, s.reason) for s in report.skipped] == [
        ("c.parquet", 2, "missing text field 'text'")]


def test_folder_of_text_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("plain text", encoding="utf-8")
    (tmp_path / "sub" / "b.md").write_text("# Heading\nbody", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"ok \xff\xfe broken \xc3")  # no BOM: not UTF-16
    (tmp_path / "ignored.bin").write_bytes(b"x")
    report = read_corpus(tmp_path)
    assert {d.id: d.title for d in report.documents} == {"a.txt": "a", "sub/b.md": "Heading"}
    assert [(s.file, s.reason.split(" (")[0]) for s in report.skipped] == [("bad.txt", "not UTF-8")]


def test_beir_folder(shared_data):
    report = read_corpus(shared_data / "scifact")
    assert len(report.documents) == 5183 and not report.skipped
    assert report.documents[0].title


def test_datasets_json_array(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps([{"id": "j1", "text": "from datasets"}]), encoding="utf-8")
    assert [d.id for d in read_corpus(path).documents] == ["j1"]


def test_unknown_format_names_the_fix(tmp_path):
    path = tmp_path / "c.xml"
    path.write_text("<x/>")
    with pytest.raises(CorpusError, match="pass format="):
        read_corpus(path)
    with pytest.raises(CorpusError, match="not found"):
        read_corpus(tmp_path / "missing.jsonl")
