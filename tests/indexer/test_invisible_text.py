"""Text made only of characters a reader cannot see (control, zero-width, a BOM) is no text: such
a query is refused like a whitespace-only one, and such a document is refused (library) or
skipped (corpus files) like an empty one, instead of ranking for every query."""

from __future__ import annotations

import json

import pytest

from indexer import QueryError, SemanticIndex, build_index, read_corpus

INVISIBLE = ["\x00\x01\x02", "\u200b\u200b", "\ufeff", "\u200d\u2060 \t", "\x1b\u00ad\u202e"]


@pytest.mark.parametrize("query", INVISIBLE)
def test_an_invisible_query_is_refused(flat_index, tiny_encoder, query):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    for mode in ("dense", "lexical", "hybrid"):
        with pytest.raises(QueryError, match="query is empty"):
            index.search(query, k=3, mode=mode)
    with pytest.raises(QueryError, match="query is empty"):
        index.search(["cats", query], k=3)


@pytest.mark.parametrize("text", INVISIBLE)
def test_an_invisible_document_is_refused_like_an_empty_one(tmp_path, tiny_encoder, text):
    docs = [{"id": "a", "text": "cats purr"}, {"id": "b", "text": text}]
    with pytest.raises(ValueError, match=r"\['text'\] is empty"):
        build_index(docs, tmp_path / "idx", model=tiny_encoder, preset="flat")


def test_an_invisible_document_is_refused_by_add(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    with pytest.raises(ValueError, match=r"\['text'\] is empty"):
        index.add([{"id": "ghost", "text": "\u200b\ufeff"}])
    assert "ghost" not in index.documents(["ghost"])


def test_a_corpus_skips_invisible_rows_like_empty_ones(tmp_path):
    path = tmp_path / "c.jsonl"
    rows = [{"id": "a", "text": "cats purr"}] + [
        {"id": f"x{i}", "text": t} for i, t in enumerate(INVISIBLE)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = read_corpus(path)
    assert [d.id for d in report.documents] == ["a"]
    assert [s.reason for s in report.skipped] == ["empty text"] * len(INVISIBLE)


def test_cli_search_refuses_an_invisible_query(flat_index, run_cli):
    done = run_cli("indexer", "search", flat_index, "\u200b\ufeff\x01")
    assert done.code != 0 and "query is empty" in done.error and done.out == ""


def test_cli_search_names_the_line_of_an_invisible_query_in_a_file(flat_index, tmp_path,
                                                                     run_cli):
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"_id": "q1", "text": "cats"}) + "\n"
                       + json.dumps({"_id": "q2", "text": "\u200b\x01"}) + "\n")
    done = run_cli("indexer", "search", flat_index, "--queries", queries)
    assert done.code != 0 and done.out == ""
    assert f"{queries}:2: query text" in done.error and "needs some text" in done.error
