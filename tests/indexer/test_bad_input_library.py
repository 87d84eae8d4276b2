"""Bad input to the indexer library: nothing lost or stored wrongly without a word, wrong types
are errors that name the argument, and a build's progress moves even inside one huge document."""

from __future__ import annotations

import json
import math
from datetime import date

import pytest

from indexer import (
    ChunkingConfig,
    CorpusError,
    CorpusOptions,
    Document,
    QueryError,
    SemanticIndex,
    build_index,
    read_corpus,
)


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "c.jsonl"
    rows = [{"id": "a1", "text": "cats purr", "category": "pets", "tags": ["x"]},
            {"id": "a2", "text": "dogs bark", "category": "pets", "tags": ["y"]},
            {"text": "no id on this row", "category": "misc", "tags": []}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# -- generated ids ---------------------------------------------------------------------------
def test_generated_ids_differ_across_files_with_the_same_name(tmp_path):
    for folder, texts in (("d1", ["alpha one", "beta two"]), ("d2", ["gamma", "delta"])):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "new.jsonl").write_text(
            "".join(json.dumps({"text": t}) + "\n" for t in texts))
    first = [d.id for d in read_corpus(tmp_path / "d1" / "new.jsonl").documents]
    second = [d.id for d in read_corpus(tmp_path / "d2" / "new.jsonl").documents]
    assert len(set(first + second)) == 4  # yesterday: new.jsonl:1, new.jsonl:2 twice
    assert first == [d.id for d in read_corpus(tmp_path / "d1" / "new.jsonl").documents]


# -- field names: a named field no row has is an error ------------------------------------------
@pytest.mark.parametrize("options,said", [
    (dict(id_field="uid"), "no row of c.jsonl has the field 'uid' (id_field)"),
    (dict(metadata_fields=("categry",)), "'categry' (metadata_fields)"),
    (dict(text_field="body"), "'body' (text_field)"),
    (dict(title_field="headline"), "'headline' (title_field)"),
    (dict(metadata_fields=("tags",)), "'tags' of c.jsonl holds lists or objects"),
])
def test_named_fields_that_no_row_has(corpus, options, said):
    with pytest.raises(CorpusError) as info:
        read_corpus(corpus, CorpusOptions(**options))
    assert said in str(info.value)
    if "(" in said:  # a field no row has: the message lists the fields there are
        assert str(info.value).endswith("its rows have: category, id, tags, text")


def test_a_format_that_overrides_the_file_name_is_named_when_fields_go_missing(corpus):
    with pytest.raises(CorpusError) as info:
        read_corpus(corpus, CorpusOptions(format="csv"))
    assert str(info.value).endswith("(read as csv as asked, but the file name says jsonl: drop "
                                    "--format / format= to read it as jsonl)")


def test_rows_without_a_named_id_field_are_skipped_not_given_an_id(corpus):
    report = read_corpus(corpus, CorpusOptions(id_field="id"))
    assert [d.id for d in report.documents] == ["a1", "a2"]
    assert [(s.line, s.reason) for s in report.skipped] == [(3, "missing id field 'id'")]


@pytest.mark.parametrize("options,error,said", [
    (dict(metadata_fields="category"), TypeError, "not a string: use ('category',)"),
    (dict(metadata_fields=("a", 3)), TypeError, "list of non-empty field names"),
    (dict(on_error="ignore"), CorpusError, "Invalid on_error 'ignore'. Valid: skip, fail"),
    (dict(format="xml"), CorpusError, "Invalid corpus format 'xml'"),
    (dict(id_field=5), TypeError, "id_field must be a string or None"),
    (dict(text_field=""), TypeError, "text_field must be a field name"),
])
def test_corpus_options_are_validated(options, error, said):
    with pytest.raises(error) as info:
        CorpusOptions(**options)
    assert said in str(info.value)


def test_metadata_fields_may_be_a_list():
    assert CorpusOptions(metadata_fields=["a", "b"]).metadata_fields == ("a", "b")


# -- wrong types in SemanticIndex calls ------------------------------------------------------
@pytest.mark.parametrize("call,error,said", [
    (lambda ix: ix.delete("d001"), TypeError, "not a single string: use ['d001']"),
    (lambda ix: ix.delete(None), TypeError, "doc_ids must be a list of ids"),
    (lambda ix: ix.delete([None]), TypeError, "doc_ids[0] must be a string"),
    (lambda ix: ix.add([{"id": None, "text": "x"}]), TypeError, "documents[0]['id'] must be"),
    (lambda ix: ix.add([{"id": "", "text": "x"}]), ValueError, "documents[0]['id'] is empty"),
    (lambda ix: ix.add([{"id": "n", "text": None}]), TypeError, "['text'] must be a string"),
    (lambda ix: ix.add([{"id": "n", "text": "  "}]), ValueError, "['text'] is empty"),
    (lambda ix: ix.add({"id": "n", "text": "x"}), TypeError, "put one document in a list: [doc]"),
    (lambda ix: ix.add([{"id": "n", "body": "x"}]), ValueError, "unknown keys 'body'"),
    (lambda ix: ix.add([{"id": "n", "text": "x", "metadata": {"t": {1, 2}}}]), TypeError,
     "['metadata']['t'] is {1, 2}: a set, which JSON cannot hold"),
    (lambda ix: ix.add([{"id": "n", "text": "x", "metadata": {"t": [1, math.nan]}}]),
     TypeError, "not a finite number"),
    (lambda ix: ix.add([{"id": "n", "text": "x", "metadata": {"when": date(2024, 1, 2)}}]),
     TypeError, "a date, which JSON cannot hold (convert it"),
    (lambda ix: ix.upsert([Document(None, "x")]), TypeError, "documents[0]['id'] must be"),
    (lambda ix: ix.add([{"id": "n", "text": "x"}], batch_size=0), ValueError,
     "batch_size must be a positive integer"),
    (lambda ix: ix.search("q", mode="hybrid", weights=(math.nan, 1)), QueryError,
     "the dense weight must be a finite number >= 0, got nan"),
    (lambda ix: ix.search("q", mode="hybrid", weights=(1,)), QueryError, "a pair"),
    (lambda ix: ix.search("q", mode="hybrid", weights=(0, 0)), QueryError, "(0, 0)"),
    (lambda ix: ix.search("q", mode="hybrid", rrf_k="60"), QueryError, "rrf_k must be"),
    (lambda ix: ix.search("q", per_chunk="no"), QueryError, "per_chunk must be True or False"),
    (lambda ix: ix.field_values("group", limit=0), ValueError, "limit must be a positive"),
    (lambda ix: ix.document(None), TypeError, "doc_id must be a string"),
])
def test_wrong_types_are_errors(flat_index, tiny_encoder, call, error, said):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    before = len(index)
    with pytest.raises(error) as info:
        call(index)
    assert said in str(info.value)
    assert len(index) == before and index._work is None  # nothing changed


def test_an_encoder_name_where_an_encoder_goes(flat_index):
    """Yesterday: AttributeError: 'str' object has no attribute 'fingerprint'."""
    with pytest.raises(TypeError, match=r"encoder must be an Encoder or None \(the index's own "
                       r"model\), got str: use encoder=load_encoder\('minilm'\)"):
        SemanticIndex.open(flat_index, encoder="minilm")


def test_missing_names_the_unknown_ids(flat_index):
    assert SemanticIndex.open(flat_index).missing(["d001", "nope", "d002", "zz"]) == ["nope", "zz"]


@pytest.mark.parametrize("call,error,said", [
    (lambda tmp, enc: SemanticIndex.open(None), TypeError,
     "index path must be an index folder path"),
    (lambda tmp, enc: SemanticIndex.open(3), TypeError,
     "index path must be an index folder path"),
    (lambda tmp, enc: read_corpus(None), TypeError, "corpus must be"),
    (lambda tmp, enc: SemanticIndex.open(tmp / ("x" * 300)), ValueError,
     "index path: the name xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… is 300 bytes long; a file "
     "or folder name may have at most 255: use a shorter one"),
    (lambda tmp, enc: build_index([{"id": "a", "text": "x"}], tmp / ("é" * 200), model=enc),
     ValueError, "is 400 bytes long"),
    (lambda tmp, enc: build_index([{"id": "a", "text": "x"}], None, model=enc), TypeError,
     "out must be"),
    (lambda tmp, enc: build_index(None, tmp / "o", model=enc), TypeError,
     "corpus (a path or a list) must be a list"),
    (lambda tmp, enc: build_index({"id": "a", "text": "x"}, tmp / "o", model=enc), TypeError,
     "put one document in a list"),
    (lambda tmp, enc: build_index([{"id": "a", "text": "x"}], tmp / "o", model=None),
     TypeError, "model must be"),
    (lambda tmp, enc: build_index([{"id": "a", "text": "x"}], tmp / "o", model=enc,
                                  shard_size=0), ValueError, "shard_size must be a positive"),
    (lambda tmp, enc: build_index([{"id": "a", "text": "x"}], tmp / "o", model=enc,
                                  preset="fast"), ValueError, "Invalid index preset 'fast'"),
    (lambda tmp, enc: build_index([{"id": "a", "text": "x"}], tmp / "o", model=enc,
                                  progress="bar"), TypeError, "progress must be a callable"),
    (lambda tmp, enc: ChunkingConfig(overlap=-1), ValueError, "overlap must be an integer >= 0"),
    (lambda tmp, enc: ChunkingConfig(chunk_tokens="128"), ValueError, "chunk_tokens must be"),
])
def test_paths_and_settings_of_the_wrong_type(tmp_path, tiny_encoder, call, error, said):
    with pytest.raises(error) as info:
        call(tmp_path, tiny_encoder)
    assert said in str(info.value)
    assert not (tmp_path / "o").exists()  # refused before anything was written


# -- progress -----------------------------------------------------------------------------------
def test_progress_moves_inside_one_huge_document(tmp_path, tiny_encoder):
    text = " ".join(f"Sentence number {i} says something about topic {i % 7}." for i in range(600))
    reports = []
    build_index([{"id": "big", "text": text}], tmp_path / "index", model=tiny_encoder,
                preset="flat", batch_size=4, shard_size=32, progress=reports.append)
    encode = [p for p in reports if p.stage == "encode"]
    total = encode[-1].chunks_total
    assert total > 50 and encode[-1].chunks == total
    moving = [p for p in encode if p.done == 0]  # the one document is not finished yet...
    chunks = [p.chunks for p in moving]
    assert len(moving) > 5 and chunks == sorted(chunks) and chunks[-1] < total  # ...yet it moves
    assert all(p.eta_s is not None for p in moving[1:])


def test_add_reports_chunks_as_they_are_embedded(flat_index, tiny_encoder):
    text = " ".join(f"Sentence {i} of a long addition about topic {i % 5}." for i in range(300))
    calls = []
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    added = index.upsert([{"id": "long", "text": text}], batch_size=4,
                         progress=lambda done, total: calls.append((done, total)))
    assert added > 20 and len(calls) > 1  # yesterday: one call, after all of it
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and calls[-1] == (added, added)


def test_a_file_given_as_the_index_names_the_folder_to_pass(flat_index, tmp_path):
    with pytest.raises(ValueError, match=f"an index's manifest: pass its folder, {flat_index}$"):
        SemanticIndex.open(flat_index / "manifest.json")
    (tmp_path / "c.jsonl").write_text("{}\n")
    with pytest.raises(ValueError, match="is a file, not an index folder"):
        SemanticIndex.open(tmp_path / "c.jsonl")
    with pytest.raises(ValueError, match="c.jsonl is a file, not a folder"):
        SemanticIndex.open(tmp_path / "c.jsonl" / "idx")  # not "build one there"
    (flat_index / "sub").mkdir()
    with pytest.raises(ValueError, match=f"lies inside the index {flat_index}: pass"):
        SemanticIndex.open(flat_index / "sub")
    with pytest.raises(ValueError, match="is a URL; pass an index folder path"):
        SemanticIndex.open("https://example.com/idx")
