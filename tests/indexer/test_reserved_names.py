"""Reserved metadata names (issue 52, classes 5 and 2): the product's own fields (`source`,
`page`, `section`, `sha256`, `format`, every `_…` name) are never taken from user input
(`access` is taken from writes, checked: test_access.py; never from front matter: only sync's
--access rules set it for files). Library writes and builds from documents refuse them,
naming the field; a build or `add` from a corpus file refuses a row carrying one, naming the
file, the row and the field; Markdown front matter naming one is ignored, said in the per-file
report, and never cited (a `.md` is never "p. 7"). Documents the product read from files keep
them. On both stores."""

from __future__ import annotations

import json

import pytest

from common.documents import FileDocument, citation, read_file
from common.metadata import RESERVED_NAMES, is_reserved
from indexer import CorpusError, SemanticIndex, build_index, sync_folder

STORES = ["folder", "milvus"]
FORGED = {"page": 7, "section": "Forged", "source": "evil.pdf", "sha256": "0" * 64,
          "format": "pdf", "_layout": {"spans": "x"}, "_anything": 1}
FRONT = ("---\ntitle: Notes\nauthor: Ann\npage: 7\nsection: Forged\nsource: evil.pdf\n"
         "sha256: abc\nformat: pdf\n_layout: 3\nbytes: 1\naccess: everyone\n---\n# Heading\n\n"
         "penguins huddle together on the ice to keep warm.\n")


def target(store: str, tmp_path, name: str = "idx") -> str:
    if store == "milvus":
        pytest.importorskip("milvus_lite")
        return f"milvus://{tmp_path}/{name}.db?collection={name}"
    return str(tmp_path / name)


@pytest.fixture(params=STORES)
def store(request) -> str:
    return request.param


@pytest.fixture
def built(store, tmp_path, tiny_encoder, docs) -> str:
    where = target(store, tmp_path)
    build_index(docs[:5], where, model=tiny_encoder, preset="flat")
    return where


def test_one_definition_of_the_reserved_names():
    assert set(RESERVED_NAMES) >= {"source", "page", "section", "sha256", "format"}
    assert is_reserved("_layout") and is_reserved("_") and not is_reserved("author")
    assert not is_reserved("Source")  # citations read the exact names


def test_every_write_refuses_a_reserved_name_and_keeps_nothing(built, tiny_encoder):
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    for name, value in FORGED.items():
        doc = {"id": "forged", "text": "a forged story", "metadata": {"ok": 1, name: value}}
        for write in (index.add, index.upsert):
            with pytest.raises(ValueError, match=f"key '{name}' is a metadata name BERTScope "
                                                 "writes itself") as caught:
                write([doc])
            assert "rename the field" in str(caught.value), caught.value
    index.save()
    again = SemanticIndex.open(built, encoder=tiny_encoder)
    assert len(again) == 5 and again.missing(["forged"]) == ["forged"]


def test_a_files_own_document_keeps_its_fields(built, tiny_encoder, tmp_path):
    page = tmp_path / "a.md"
    page.write_text("# Cats\n\ncats purr on the sofa all day long.\n", encoding="utf-8")
    doc = read_file(page, "a.md")
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    index.upsert([doc])
    index.save()
    stored = SemanticIndex.open(built, encoder=tiny_encoder).stored(["a.md"]).docs[0]
    assert stored.metadata["source"] == "a.md" and stored.metadata["sha256"]


def test_a_forged_layout_already_in_an_index_never_breaks_a_search(built, tiny_encoder):
    # an index written before the refusal may hold one: its hits are served, without a place
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    for n, layout in enumerate(({"spans": "x"}, {"spans": [[0, 5, "p", 9]]},
                                {"spans": [[0, 9, 1, 3]], "sections": []}, [1, 2])):
        index.upsert([FileDocument(f"bad{n}", "walruses bask on rocks", "",
                                   {"_layout": layout, "source": f"bad{n}.md"})])
    index.save()
    hits = SemanticIndex.open(built, encoder=tiny_encoder).search("walruses bask", k=10,
                                                                  mode="lexical")
    bad = [h for h in hits if h.doc_id.startswith("bad")]
    assert len(bad) == 4 and all("page" not in h.metadata and "_layout" not in h.metadata
                                 for h in bad)


def test_a_build_from_documents_refuses_a_reserved_name(store, tmp_path, tiny_encoder):
    where = target(store, tmp_path)
    with pytest.raises(ValueError, match="key '_layout' is a metadata name"):
        build_index([{"id": "a", "text": "cats", "metadata": {"_layout": {}}}], where,
                    model=tiny_encoder, preset="flat")


def test_a_build_from_a_corpus_file_refuses_a_row_with_a_reserved_field(store, tmp_path,
                                                                        tiny_encoder):
    rows = tmp_path / "crawl.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "r1", "text": "cats purr", "url": "https://a.example"},
        {"id": "r2", "text": "dogs bark", "source": "https://b.example", "sha256": "ab"}]))
    where = target(store, tmp_path)
    with pytest.raises(CorpusError) as caught:
        build_index(str(rows), where, model=tiny_encoder, preset="flat")
    said = str(caught.value)
    assert "crawl.jsonl" in said and "'r2'" in said and "'source'" in said, said
    assert "--metadata-fields" in said and "rename" in said
    with pytest.raises(FileNotFoundError):
        SemanticIndex.open(where, encoder=tiny_encoder)  # nothing was built
    # keeping only the other fields builds it
    from indexer import CorpusOptions

    index = build_index(str(rows), where, model=tiny_encoder, preset="flat",
                        corpus_options=CorpusOptions(metadata_fields=("url",)))
    assert len(index) == 2


def test_front_matter_never_sets_the_products_fields(tmp_path):
    md = tmp_path / "notes.md"
    md.write_text(FRONT, encoding="utf-8")
    doc = read_file(md, "notes/notes.md")
    assert isinstance(doc, FileDocument)
    m = doc.metadata
    assert m["author"] == "Ann" and m["source"] == "notes/notes.md" and m["format"] == "markdown"
    assert "page" not in m and "section" not in m and m["sha256"] != "abc"
    assert "access" not in m  # who reads a file is the folder's rule, never its own say
    assert isinstance(m["_layout"], dict) and m["bytes"] == len(FRONT.encode())
    (note,) = doc.notes
    for key in ("page", "section", "source", "sha256", "format", "_layout", "bytes", "access"):
        assert f"'{key}'" in note, note
    assert "ignored" in note and "author" not in note


@pytest.mark.parametrize("store", STORES)
def test_sync_reports_the_ignored_keys_and_never_cites_a_forged_page(store, tmp_path,
                                                                     tiny_encoder):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(FRONT, encoding="utf-8")
    (folder / "plain.md").write_text("# Plain\n\nnothing forged here at all.\n")
    where = target(store, tmp_path)
    first = sync_folder(folder, where, model=tiny_encoder, preset="flat")
    assert [rel for rel, _ in first.notes] == ["notes.md"], first.notes
    assert any(line.startswith("note notes.md: its metadata 'page'") for line in first.lines())
    (folder / "notes.md").write_text(FRONT.replace("keep warm", "stay warm"), encoding="utf-8")
    again = sync_folder(folder, where, model=tiny_encoder)
    assert again.updated == ["notes.md"] and [r for r, _ in again.notes] == ["notes.md"]
    index = SemanticIndex.open(where, encoder=tiny_encoder)
    hits = index.search("penguins huddle", k=5, mode="lexical", per_chunk=True)
    cited = [citation(h.metadata) for h in hits if h.doc_id == "notes.md"]
    assert cited and all(c.startswith("notes.md") and "p. 7" not in c and "Forged" not in c
                         for c in cited), cited


def test_cli_build_and_add_say_which_files_and_rows(tmp_path, tiny_model_dir, run_cli):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(FRONT, encoding="utf-8")
    out = tmp_path / "idx"
    built = run_cli("indexer", "build", "--corpus", str(folder), "--out", str(out), "--model",
                    str(tiny_model_dir), "--index", "flat")
    assert built.code == 0, built
    assert "note notes.md: its metadata 'page'" in built.err, built.err
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "x", "text": "cats", "_layout": "forged"}) + "\n")
    added = run_cli("indexer", "add", str(out), "--corpus", str(rows))
    assert added.code == 1 and "'_layout'" in added.error and "rows.jsonl" in added.error, added
    info = run_cli("indexer", "info", str(out))
    assert '"notes": "1 files' in info.out, info.out


def test_a_ray_build_ships_a_files_document_to_its_workers():
    # a FileDocument's notes stay on the driver: its workers make Documents of four fields
    from indexer.documents import Document
    from indexer.ray.encode import shard_items

    doc = FileDocument("a.md", "cats", "A", {"source": "a.md"}, notes=("its metadata …",))
    (item,) = shard_items([doc], [0], 1)
    assert [Document(**d) for d in json.loads(item["docs"])] == [
        Document("a.md", "cats", "A", {"source": "a.md"})]
