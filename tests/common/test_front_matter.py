"""Issue 52, class 2: front matter is typed as written (YAML 1.2 core, not PyYAML's 1.1: `NO`
was false, zip 01234 was 668, version 1.10 was 1.1), bounded (alias joins expanded a 100 kB
file into a 100 MB field; a huge block is left out with a note), and read in the formats Hugo,
Jekyll and Obsidian users write (TOML `+++` was indexed as body text; JSON too)."""

from __future__ import annotations

import time

import pytest

from common.documents import ReadError, read_file
from common.documents.front_matter import MAX_BYTES, MAX_VALUE_CHARS, read_front_matter


def _fields(block: str) -> dict:
    return read_front_matter(f"---\n{block}\n---\n# Body\n\ntext\n").fields


def test_yaml_values_are_typed_as_written():
    fields = _fields("country: NO\nanswer: yes\nlight: on\nzip: 01234\nversion: 1.10\n"
                     "count: 42\nratio: 2.5\nneg: -3\ndone: true\nlate: False\n"
                     "date: 2024-05-01\nat: 12:30\nbig: 1e3\nplus: +5\nhuge: 99999999999999999999\n"
                     "nothing: null\nquoted: '7'")
    assert fields == {"country": "NO", "answer": "yes", "light": "on", "zip": "01234",
                      "version": "1.10", "count": 42, "ratio": 2.5, "neg": -3, "done": True,
                      "late": False, "date": "2024-05-01", "at": "12:30", "big": "1e3",
                      "plus": "+5", "huge": "99999999999999999999", "quoted": "7"}


def test_alias_joins_are_bounded():
    big = "x" * 1000
    block = "a: &a " + big + "\nb: [" + ", ".join(["*a"] * 100) + "]\ntitle: Kept"
    started = time.perf_counter()
    front = read_front_matter(f"---\n{block}\n---\nbody\n")
    assert time.perf_counter() - started < 2
    assert front.fields == {"a": big, "title": "Kept"}  # b: 100 x 1000 characters, left out
    assert front.notes == [f"its front matter field 'b' left out: a list of 100,200 "
                           f"characters, over {MAX_VALUE_CHARS:,}"]
    many = "a: &a [x]\n" + "\n".join(f"k{i}: *a" for i in range(101))
    front = read_front_matter(f"---\n{many}\n---\nbody\n")
    assert front.fields == {} and "more than 100 YAML aliases" in front.notes[0]
    assert front.body == "body\n"


def test_a_huge_front_matter_is_left_out_with_a_note():
    block = "\n".join(f"k{i}: {'v' * 60}" for i in range(MAX_BYTES // 60))
    front = read_front_matter(f"---\n{block}\n---\n# Body\n\nkept\n")
    assert front.fields == {} and front.body == "# Body\n\nkept\n"
    assert front.notes[0].startswith("its front matter is ") and "left out" in front.notes[0]


def test_hugo_toml_front_matter_is_parsed_not_indexed_as_text(tmp_path):
    (tmp_path / "post.md").write_text(
        '+++\ntitle = "Penguins in winter"\ndate = 2024-01-05T10:00:00Z\ndraft = false\n'
        'tags = ["birds", "cold"]\nweight = 3\n[params]\nhero = "a.png"\n+++\n\n'
        "Emperor penguins huddle.\n")
    doc = read_file(tmp_path / "post.md", "post.md")
    assert doc.title == "Penguins in winter" and "title =" not in doc.text
    assert {k: doc.metadata[k] for k in ("date", "draft", "tags", "weight")} == {
        "date": "2024-01-05T10:00:00+00:00", "draft": False, "tags": "birds, cold", "weight": 3}
    assert "hero" not in doc.metadata and any("'params'" in n for n in doc.notes)


def test_hugo_json_front_matter_is_parsed(tmp_path):
    (tmp_path / "j.md").write_text('{\n  "title": "Json post",\n  "zip": "01234"\n}\n\nBody.\n')
    doc = read_file(tmp_path / "j.md", "j.md")
    assert doc.title == "Json post" and doc.metadata["zip"] == "01234" and doc.text == "Body."


def test_jekyll_and_obsidian_front_matter(tmp_path):
    (tmp_path / "jekyll.md").write_text(
        "---\nlayout: post\ntitle: \"Welcome\"\ndate: 2024-01-05 10:00:00 +0100\n"
        "categories: [news, site]\n---\nHello.\n")
    (tmp_path / "obsidian.md").write_text(
        "---\ntags:\n  - project\n  - idea\naliases: [Plan B]\ncreated: 2023-01-01T10:00\n"
        "cssclasses:\n  - wide\n---\n# Plan\n\nThe plan.\n")
    jekyll = read_file(tmp_path / "jekyll.md", "jekyll.md")
    assert jekyll.title == "Welcome"
    assert {k: jekyll.metadata[k] for k in ("layout", "date", "categories")} == {
        "layout": "post", "date": "2024-01-05 10:00:00 +0100", "categories": "news, site"}
    obsidian = read_file(tmp_path / "obsidian.md", "obsidian.md")
    assert {k: obsidian.metadata[k] for k in ("tags", "aliases", "created", "cssclasses")} == {
        "tags": "project, idea", "aliases": "Plan B", "created": "2023-01-01T10:00",
        "cssclasses": "wide"}


def test_a_thematic_break_is_no_front_matter_and_bad_yaml_is_one_line():
    front = read_front_matter("---\nnot closed\n\n# Title\n")
    assert front.fields == {} and front.body.startswith("---")
    with pytest.raises(ReadError, match="not valid YAML"):
        read_front_matter("---\na: [unclosed\n---\nbody\n")
    with pytest.raises(ReadError, match="not valid TOML"):
        read_front_matter("+++\na = \n+++\nbody\n")


@pytest.mark.parametrize("store", ["folder", "milvus"])
def test_values_keep_their_written_type_in_both_stores(tmp_path, tiny_encoder, store):
    from indexer import ChunkingConfig, SemanticIndex
    from indexer.sync import sync_folder

    if store == "milvus":
        pytest.importorskip("milvus_lite")
        target = f"milvus://{tmp_path}/f.db?collection=front"
    else:
        target = str(tmp_path / "idx")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("---\ncountry: NO\nzip: 01234\nversion: 1.10\nn: 3\n---\n# A\n\n"
                               "penguins\n")
    (docs / "b.md").write_text("+++\ncountry = \"SE\"\nzip = \"56789\"\n+++\n# B\n\ncats\n")
    report = sync_folder(docs, target, model=tiny_encoder,
                         chunking=ChunkingConfig(chunk_tokens=64, overlap=8))
    assert sorted(report.added) == ["a.md", "b.md"] and report.failed == []
    index = SemanticIndex.open(target, encoder=tiny_encoder)
    try:
        a = index.documents(["a.md"])["a.md"].metadata
        assert (a["country"], a["zip"], a["version"], a["n"]) == ("NO", "01234", "1.10", 3)
        hits = index.search("cats", k=5, filter={"zip": "01234"})
        assert [h.doc_id for h in hits] == ["a.md"]
        assert "+++" not in index.documents(["b.md"])["b.md"].text
    finally:
        if hasattr(index, "close"):
            index.close()
