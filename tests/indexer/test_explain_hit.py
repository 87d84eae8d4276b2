"""`SemanticIndex.explain`: the index's encoder explains a hit's chunk as it was encoded."""

from __future__ import annotations

import pytest

from indexer import SemanticIndex


def test_explaining_a_hit_reproduces_its_score(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    hit = index.search("cats purr on the sofa", k=3)[1]
    e = index.explain("cats purr on the sofa", hit, steps=4)
    # flat index: exact inner product of the index's vectors, made by the encoder's backend
    assert e.backend_score == pytest.approx(hit.score, abs=1e-4)
    assert e.backend == tiny_encoder.backend
    assert e.text_b == f"{hit.title} {hit.text}"  # the index encodes title + chunk
    assert e.word_strings_b[:2] == hit.title.split()
    assert abs(e.error) <= 0.01 * abs(e.target) + 1e-6
    occluded = index.explain("cats purr on the sofa", hit, method="occlusion")
    assert occluded.backend_score == pytest.approx(hit.score, abs=1e-4)
    assert occluded.score == pytest.approx(e.score, abs=1e-5)  # both on the torch model


def test_explain_wants_a_hit(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    with pytest.raises(TypeError, match="Hit"):
        index.explain("cats", {"text": "cats"})
