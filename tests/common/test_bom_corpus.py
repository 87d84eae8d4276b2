"""A UTF-8 file that starts with a byte-order mark (as Notepad and Excel save them) reads like
the same file without it: no first row lost, no header named "\\ufeffid", no title missed."""

from __future__ import annotations

import json

import pytest

from common.jsonl import jsonl_objects
from indexer import read_corpus

BOM = b"\xef\xbb\xbf"


def _write(path, text: str):
    path.write_bytes(BOM + text.encode("utf-8"))
    return path


def test_jsonl_objects_reads_the_first_line(tmp_path):
    path = _write(tmp_path / "a.jsonl", '{"id": "a1"}\n{"id": "a2"}\n')
    assert list(jsonl_objects(path)) == [(1, {"id": "a1"}), (2, {"id": "a2"})]


@pytest.mark.parametrize("name,text", [
    ("c.jsonl", '{"id": "a1", "text": "cats purr"}\n{"id": "a2", "text": "dogs bark"}\n'),
    ("c.csv", "id,text\na1,cats purr\na2,dogs bark\n"),
    ("c.tsv", "id\ttext\na1\tcats purr\na2\tdogs bark\n"),
    ("c.json", '{"id": "a1", "text": "cats purr"}\n{"id": "a2", "text": "dogs bark"}\n'),
])
def test_corpus_files_keep_their_first_row_and_field_names(tmp_path, name, text):
    report = read_corpus(_write(tmp_path / name, text))
    assert [(d.id, d.text) for d in report.documents] == [("a1", "cats purr"),
                                                          ("a2", "dogs bark")]
    assert not report.skipped


def test_folder_files_lose_the_mark_and_keep_their_title(tmp_path):
    _write(tmp_path / "note.md", "# Cats\nThey purr.\n")
    _write(tmp_path / "plain.txt", "dogs bark\n")
    docs = {d.id: d for d in read_corpus(tmp_path).documents}
    # a Markdown heading is read as its words (the section's first line), the "#" left out
    assert docs["note.md"].title == "Cats" and docs["note.md"].text.startswith("Cats\nThey")
    assert docs["plain.txt"].text == "dogs bark"
    assert json.dumps([d.text for d in docs.values()]).count("\\ufeff") == 0
