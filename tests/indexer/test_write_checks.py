"""Writes that would break later reads are refused where they are written, in both stores: a
value of another kind than its field holds (the field would turn "mixed", and every range filter
on it would fail for every reader), an integer beyond 64 bits (no store reads it back), an id
twice in one write, a text over the documented limit. Nothing is written, and the index's field
types stay what readers saw."""

from __future__ import annotations

import json

import pytest

from indexer import CorpusError, QueryError, SemanticIndex, build_index, read_corpus


def _refused(index, write, docs, *said):
    before = (len(index), index.field_types())
    with pytest.raises(ValueError) as info:
        getattr(index, write)(docs)
    for word in said:
        assert word in str(info.value), str(info.value)
    assert (len(index), index.field_types()) == before
    return str(info.value)


def _poisoned_writes(index):
    """Every refused write, on a folder or a Milvus index whose `topic` is int, `group` str."""
    said = _refused(index, "upsert", [{"id": "p1", "text": "x", "metadata": {"topic": "five"}}],
                    "'p1'", "'topic'", "holds int")
    assert "(str)" in said and "nothing was written" in said
    _refused(index, "add", [{"id": "p2", "text": "x", "metadata": {"group": 3}}],
             "'p2'", "'group'", "holds str")
    _refused(index, "add", [{"id": "p3", "text": "x", "metadata": {"topic": True}}],
             "'topic'", "bool")
    _refused(index, "add", [{"id": "p4", "text": "x", "metadata": {"n": 2**64}}],
             "'p4'", "'n'", "beyond 64 bits")
    _refused(index, "add", [{"id": "p5", "text": "x", "metadata": {"n": [1, -2**63 - 1]}}],
             "'p5'", "64 bits")
    _refused(index, "add", [{"id": "p6", "text": "x", "metadata": {"new": 1}},
                            {"id": "p7", "text": "y", "metadata": {"new": "one"}}],
             "'p7'", "'new'", "holds int")  # a field new in this write: its first value rules
    _refused(index, "upsert", [{"id": "p8", "text": "first"}, {"id": "p8", "text": "second"}],
             "documents[1]", "'p8'", "documents[0]")
    _refused(index, "add", [{"id": "p9", "text": "a" * 100_001}], "'p9'", "100,001",
             "100,000")
    _refused(index, "add", [{"id": "p10", "text": "bad \ud800 text"}], "'p10'", "'text'",
             "lone surrogate")
    _refused(index, "add", [{"id": "p11", "text": "x", "metadata": {"k": "\udfff"}}],
             "'p11'", "'k'", "lone surrogate")
    # what a reader does with the fields still works, and compatible values are taken
    assert index.add([{"id": "ok1", "text": "cats purr", "metadata": {"topic": 2.5,
                                                                      "group": "c",
                                                                      "n": 2**63 - 1}}]) >= 1
    assert index.field_types()["topic"] == "float"  # int and float are both numbers
    with pytest.raises(QueryError, match="a query holds a lone surrogate"):
        index.search(["cats", "\ud800 dogs"])
    hits = index.search("cats", k=50, filter={"topic": {"gte": 2, "lt": 3}})
    assert hits and {h.metadata["topic"] for h in hits} <= {2, 2.5}


def test_a_folder_index_refuses_writes_that_would_break_reads(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    _poisoned_writes(index)
    # within one session the working copy keeps the kinds it was given and those written since
    _refused(index, "add", [{"id": "w1", "text": "x", "metadata": {"n": "text now"}}],
             "'n'", "holds int")
    index.save()
    again = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert again.manifest["metadata_fields"] == {"flag": "bool", "group": "str", "n": "int",
                                                 "score": "float", "topic": "float"}
    _refused(again, "add", [{"id": "w2", "text": "x", "metadata": {"flag": 1}}], "'flag'")


def test_a_milvus_index_refuses_the_same_writes(tmp_path, tiny_encoder, docs):
    pytest.importorskip("milvus_lite")
    target = f"milvus://{tmp_path}/w.db?collection=w"
    build_index(docs[:10], target, model=tiny_encoder, preset="flat")
    index = SemanticIndex.open(target, encoder=tiny_encoder)
    _poisoned_writes(index)
    index.save()
    assert SemanticIndex.open(target).field_types()["topic"] == "float"


def test_a_build_holds_a_field_to_one_kind(tmp_path, tiny_encoder):
    rows = [{"id": "a", "text": "alpha", "year": 2004},
            {"id": "b", "text": "beta", "year": "two thousand"},
            {"id": "c", "text": "gamma", "year": 2005.5, "big": 2**70},
            {"id": "d", "text": "delta \ud800 bad"},
            {"id": "e", "text": "epsilon", "year": 2006}]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = read_corpus(path)
    assert [d.id for d in report.documents] == ["a", "e"]
    reasons = {s.line: s.reason for s in report.skipped}
    assert "'year'" in reasons[2] and "holds int" in reasons[2]
    assert "'big'" in reasons[3] and "64 bits" in reasons[3]
    assert "its text holds a lone surrogate" in reasons[4]
    index = build_index(path, tmp_path / "idx", model=tiny_encoder, preset="flat")
    assert index.field_types() == {"year": "int"} and len(index.manifest["skipped"]) == 3
    with pytest.raises(ValueError, match=r"document 'b': metadata field 'year'"):
        build_index([{"id": "a", "text": "x", "metadata": {"year": 1}},
                     {"id": "b", "text": "y", "metadata": {"year": "one"}}],
                    tmp_path / "idx2", model=tiny_encoder)
    with pytest.raises(CorpusError, match="on_error='skip'"):
        from indexer import CorpusOptions

        read_corpus(path, CorpusOptions(on_error="fail"))
