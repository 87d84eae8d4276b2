"""BM25 segments (`common.bm25_segments`, issue 48) score as bm25s does: after any sequence of
changes (deltas appended, chunks deleted, new bases once the merge share is passed), saved and
mapped back, a search gives exactly what bm25s's index built over the live chunks gives: the
same ids in the same order and the same float32 scores, under every form of `allowed`."""

from __future__ import annotations

import random

import numpy as np
import pytest

from common.bm25_segments import SEGMENTS, SegmentedLexical, load_lexical
from common.lexical import Bm25Params, LexicalIndex, tokenize

WORDS = ["apple", "pears", "plum", "cats", "dog", "running", "runs", "jumped", "sky", "blue",
         "the", "猫", "狗", "天空很蓝", "我们喜欢苹果"]


def text(rng: random.Random, extra: str = "") -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 14))) + extra


def assert_same(got: LexicalIndex, want: LexicalIndex, queries: list[str], allowed) -> None:
    assert len(got) == len(want)
    for query in queries:
        mine, theirs = got.search([query], 40, allowed)[0], want.search([query], 40, allowed)[0]
        assert [i for i, _ in mine] == [i for i, _ in theirs], query
        assert np.array_equal(np.float32([s for _, s in mine]),
                              np.float32([s for _, s in theirs])), query


@pytest.mark.parametrize("seed,params", [(0, Bm25Params()), (1, Bm25Params(1.2, 0.3)),
                                         (2, Bm25Params(0.0, 1.0))])
def test_changed_segments_score_as_a_fresh_bm25s_build(tmp_path, seed, params):
    rng = random.Random(seed)
    rows = {i: " ".join(tokenize(text(rng))) for i in range(150)}
    index = SegmentedLexical.from_rows(sorted(rows.items()), params)
    made, merges, deltas = 150, 0, 0
    for step in range(25):
        added, start = [], made
        for _ in range(rng.randint(0, 4)):  # each new chunk has a word of its own
            rows[made] = " ".join(tokenize(text(rng, f" only{made}")))
            added.append((made, rows[made]))
            made += 1
        gone = rng.sample(sorted(rows), rng.randint(0, 4))
        removed = sorted((g, rows.pop(g)) for g in gone)
        # what a writer passes: the new rows still live, the rows of the old ones it deleted
        changed = index.changed([r for r in added if r[0] in rows],
                                [r for r in removed if r[0] < start])
        if changed is None:
            merges += 1
            changed = SegmentedLexical.from_rows(sorted(rows.items()), params)
        else:
            deltas += 1
        changed.save(tmp_path / str(step), tmp_path / str(step - 1))
        index = load_lexical(tmp_path / str(step), mapped=True)
        want = LexicalIndex.from_rows(sorted(rows.items()), params)
        dead = [f"only{g}" for g in gone if g >= 150]
        queries = ["apple cats", "pears pears sky", "猫 dog", "天空", f"only{made - 1}",
                   *dead[:2], "runs the", "nothing-here"]
        mask = np.array([rng.random() < 0.6 for _ in range(made + 3)])
        for allowed in (None, mask, mask[: made // 2], {i for i in rows if i % 3}):
            assert_same(index, want, queries, allowed)
    assert merges >= 2 and deltas >= 5  # both paths, several times


def test_an_empty_index_and_one_emptied_by_deletes(tmp_path):
    empty = SegmentedLexical.from_rows([])
    empty.save(tmp_path / "e")
    assert load_lexical(tmp_path / "e").search(["apple"], 5) == [[]]
    index = SegmentedLexical.from_rows([(i, "appl") for i in range(40)] + [(40, "")])
    gone = index.changed([], [(0, "appl"), (40, "")])
    assert len(gone) == 39 and gone.search(["apple"], 100)[0][0][0] == 1
    assert gone.search(["apple"], 100) == \
        LexicalIndex.from_rows([(i, "appl") for i in range(1, 40)]).search(["apple"], 100)


def test_old_bm25s_folders_still_load(tmp_path):
    rows = [(i, " ".join(tokenize(t))) for i, t in enumerate(["red apple", "blue sky", "猫"])]
    LexicalIndex.from_rows(rows).save(tmp_path / "old")
    loaded = load_lexical(tmp_path / "old", mapped=True)
    assert not (tmp_path / "old" / SEGMENTS).exists()
    assert type(loaded) is LexicalIndex
    assert_same(loaded, SegmentedLexical.from_rows(rows), ["apple sky", "猫"], None)
