"""BM25's k1 (term-frequency saturation) and b (length normalisation) reach the scores."""

from __future__ import annotations

import pytest

from common.lexical import Bm25Params, LexicalIndex, tokenize

SHORT = tokenize("apple")
LONG = tokenize("apple apple apple " + " ".join(f"filler{i}" for i in range(40)))
OTHERS = [tokenize(f"other{i} pear") for i in range(6)]  # so that "apple" keeps a positive idf


def ranking(**params) -> list[int]:
    index = LexicalIndex.build(range(8), [SHORT, LONG, *OTHERS], Bm25Params(**params))
    return [doc for doc, _ in index.search(["apple"], 2)[0]]


def test_b_decides_between_a_short_match_and_a_long_repeated_one():
    assert ranking(k1=1.5, b=1.0) == [0, 1]  # full length normalisation: the short document
    assert ranking(k1=1.5, b=0.0) == [1, 0]  # none: three mentions beat one


def test_k1_zero_ignores_how_often_a_term_occurs():
    index = LexicalIndex.build(range(8), [SHORT, tokenize("apple apple apple"), *OTHERS],
                               Bm25Params(0.0, 0.0))
    (_, s0), (_, s1) = index.search(["apple"], 2)[0]
    assert s0 == pytest.approx(s1)


def test_parameters_survive_save_and_load(tmp_path):
    built = LexicalIndex.build(range(8), [SHORT, LONG, *OTHERS], Bm25Params(0.6, 0.3))
    built.save(tmp_path / "bm25")
    loaded = LexicalIndex.load(tmp_path / "bm25")
    assert loaded.search(["apple"], 2) == built.search(["apple"], 2)
    default = LexicalIndex.build(range(8), [SHORT, LONG, *OTHERS])
    assert loaded.search(["apple"], 2) != default.search(["apple"], 2)


@pytest.mark.parametrize("params", [{"k1": -0.1}, {"b": 1.5}, {"b": -0.2}])
def test_bad_parameters_are_refused_by_name(params):
    with pytest.raises(ValueError, match="k1=.*b="):
        Bm25Params(**params)


@pytest.mark.parametrize("params", [{"k1": "1.2"}, {"b": None}, {"k1": True}, {"k1": float("inf")}])
def test_parameters_that_are_not_numbers_are_refused(params):
    with pytest.raises(ValueError, match="must be a finite number"):
        Bm25Params(**params)


def test_an_index_without_recorded_parameters_uses_the_defaults():
    assert Bm25Params.of({}) == Bm25Params()
    assert Bm25Params.of({"bm25": {"k1": 0.6, "b": 0.75}}) == Bm25Params(0.6, 0.75)
