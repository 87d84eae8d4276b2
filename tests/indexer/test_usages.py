"""word_usages: the chunks holding a word, ranked by the word's contextual similarity; the
nearest chunks where none holds it; window and rank as pure helpers."""

from __future__ import annotations

import numpy as np
import pytest

from indexer import build_index
from indexer.usages import rank, window, word_usages

DOCS = [
    {"id": "pie", "text": "She baked an apple pie with fruit from the orchard."},
    {"id": "phone", "text": "Apple released a new phone and shares rose."},
    {"id": "tree", "text": "The apple tree in the garden is old."},
    {"id": "none", "text": "Rain is expected in the north tomorrow."},
]


class FakeTrajectory:
    """Cosines at layer 1 that rank the candidates by the given scores (layer 0: all alike)."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores
        self.calls: list[tuple] = []

    def __call__(self, contexts, word):
        self.calls.append((tuple(contexts), word))
        cosine = np.ones((2, len(contexts), len(contexts)))
        for i, text in enumerate(contexts[1:], start=1):
            cosine[1, 0, i] = next(v for k, v in self.scores.items() if k in text)
        return type("Trajectory", (), {"cosine": cosine})()


@pytest.fixture(scope="module")
def index(tmp_path_factory, tiny_encoder):
    return build_index(DOCS, tmp_path_factory.mktemp("usages") / "i", model=tiny_encoder)


def test_chunks_with_the_word_ranked_by_the_given_layer(index):
    traj = FakeTrajectory({"orchard": 0.9, "phone": 0.2, "garden": 0.5})
    found = word_usages(index, "apple", "I ate an apple.", layer=1, trajectory=traj, top=2)
    assert found.candidates == 3 and not found.nearest
    assert [u.hit.doc_id for u in found.found] == ["pie", "tree"]
    assert [u.similarity for u in found.found] == [0.9, 0.5]
    for u in found.found:
        assert u.text[u.span[0]:u.span[1]].lower() == "apple"
    assert traj.calls[0][0][0] == "I ate an apple." and len(traj.calls[0][0]) == 4
    at_zero = word_usages(index, "apple", "I ate an apple.", layer=0, trajectory=traj, top=3)
    assert [u.similarity for u in at_zero.found] == [1.0, 1.0, 1.0]


def test_a_word_no_chunk_holds_falls_back_to_the_nearest_chunks(index):
    traj = FakeTrajectory({})
    found = word_usages(index, "zebra", "A zebra eats grass.", layer=1, trajectory=traj, top=3)
    assert found.found == [] and found.candidates == 0 and len(found.nearest) == 3
    assert traj.calls == []  # no token vectors needed


def test_window_and_rank():
    text = "x" * 300 + "Apple" + "y" * 300
    crop, (a, b) = window(text, "apple", width=10)
    assert crop == "x" * 10 + "Apple" + "y" * 10 and crop[a:b] == "Apple"
    assert window("no fruit here", "apple") is None
    assert rank([0.1, 0.9, 0.5, 0.9], top=3) == [1, 3, 2]  # ties keep their order


def test_a_use_seen_twice_is_listed_once_and_the_caption_counts_what_is_shown():
    """Overlapping chunks hold the same occurrence (the same offset in the document), and a
    duplicated document holds the same passage: each is one use (issue 42: one hit twice)."""
    from indexer.documents import Hit
    from indexer.usages import CANDIDATES, Usages, distinct

    text = "The new Apple phone sold well in its first week."

    def hit(doc: str, start: int, chunk: str) -> Hit:
        return Hit(doc, start, 1.0, 1, chunk, doc, start, start + len(chunk))

    a = hit("d1", 0, text)
    overlap = hit("d1", 4, text[4:])  # the next chunk starts inside the first: same "Apple"
    copy = hit("d2", 0, text)  # the same article stored twice
    other = hit("d3", 0, "An apple a day.")
    found = distinct([(h, window(h.text, "apple")) for h in (a, overlap, copy, other)])
    assert [h.doc_id for h, _ in found] == ["d1", "d3"]
    shown = Usages("apple", 3, 2, found=[], capped=False)
    assert shown.caption("news", "context #1").startswith(
        "The 0 closest of all 2 distinct uses of “apple” in news")
    capped = Usages("apple", 3, 17, capped=True).caption("news", "context #1")
    assert f"the 17 distinct uses among the {CANDIDATES} chunks BM25 ranks first" in capped
    assert "(news may hold more)" in capped


def test_readers_see_no_use_in_a_document_hidden_from_them(tmp_path, tiny_encoder):
    docs = [*DOCS, {"id": "memo", "text": "The apple budget memo for the board.",
                    "metadata": {"access": ["hr"]}}]
    index = build_index(docs, tmp_path / "i", model=tiny_encoder)
    traj = FakeTrajectory({"orchard": 0.9, "phone": 0.2, "garden": 0.5, "memo": 0.99})
    hr = word_usages(index, "apple", "I ate an apple.", layer=1, trajectory=traj, top=5,
                     readers=["hr"])
    assert hr.found[0].hit.doc_id == "memo" and hr.candidates == 4
    outside = word_usages(index, "apple", "I ate an apple.", layer=1, trajectory=traj, top=5,
                          readers=["sales"])
    assert outside.candidates == 3 and "memo" not in {u.hit.doc_id for u in outside.found}
    nearest = word_usages(index, "budget", "The board memo.", layer=1, trajectory=traj,
                          readers=frozenset())
    assert not nearest.found and "memo" not in {h.doc_id for h in nearest.nearest}
