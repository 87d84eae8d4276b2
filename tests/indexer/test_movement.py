"""`rank_movements`: hand-made result lists and the marks each result gets."""

from __future__ import annotations

import pytest

from indexer import Movement, rank_movements


def test_every_kind_on_a_hand_made_pair():
    before = ["a", "b", "c", "d", "e"]
    after = ["c", "a", "x", "b", "e"]
    got = rank_movements(before, after)
    assert got == [
        Movement("c", "up", 1, 3),
        Movement("a", "down", 2, 1),
        Movement("x", "new", 3, None),
        Movement("b", "down", 4, 2),
        Movement("e", "same", 5, 5),
        Movement("d", "gone", None, 4),
    ]
    assert [m.delta for m in got] == [2, -1, None, -2, 0, None]
    assert [m.label for m in got] == ["↑ 2", "↓ 1", "new", "↓ 2", "=", "gone (was 4)"]


def test_identical_lists_are_all_same_and_disjoint_ones_all_new_or_gone():
    assert {m.kind for m in rank_movements(["a", "b"], ["a", "b"])} == {"same"}
    got = rank_movements(["a", "b"], ["c"])
    assert [(m.doc_id, m.kind) for m in got] == [("c", "new"), ("a", "gone"), ("b", "gone")]


def test_empty_lists():
    assert rank_movements([], []) == []
    assert [m.kind for m in rank_movements([], ["a"])] == ["new"]
    assert [m.kind for m in rank_movements(["a"], [])] == ["gone"]


def test_bad_input_names_the_fix():
    with pytest.raises(ValueError, match="'a' twice.*per_chunk"):
        rank_movements(["a", "a"], ["a"])
    with pytest.raises(TypeError, match="not a string"):
        rank_movements("ab", ["a"])
    with pytest.raises(TypeError, match=r"after\[0\].*hit.doc_id"):
        rank_movements(["a"], [object()])


def test_corpus_difference_speaks_only_when_the_documents_differ():
    from types import SimpleNamespace as S

    from indexer.movement import corpus_difference

    same = S(documents=10, source="bbc.jsonl")
    assert corpus_difference(same, S(documents=10, source="bbc.jsonl")) is None
    said = corpus_difference(same, S(documents=9, source="bbc.jsonl"))
    assert "different documents" in said and "10 from bbc.jsonl" in said and "9 from" in said
    assert corpus_difference(same, S(documents=10, source="other.csv")) is not None
