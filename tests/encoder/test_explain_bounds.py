"""`Encoder.explain` bounds its work and refuses beyond it at once, naming the bound (issue 26,
item 3: steps=5000 ran for minutes; steps=10**6 asked Gauss-Legendre for a 10**6-square matrix,
7 TiB). Nothing is timed: a refused request never reaches the Jacobians."""

from __future__ import annotations

import pytest

import encoder.explain.api as api
from encoder import ExplainError
from encoder.explain import bounds

A = "A man is playing a guitar."
B = "Someone plays unbelievably loud music."


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if the integrated Jacobians start."""

    def refuse(*args, **kwargs):
        raise AssertionError("the Jacobians ran; the bound should have refused first")

    monkeypatch.setattr(api, "token_shares", refuse)


@pytest.mark.parametrize("steps", [bounds.MAX_STEPS + 1, 5000, 10**6])
def test_too_many_steps_are_refused_at_once(tiny_encoder, no_work, steps):
    with pytest.raises(ExplainError, match=f"at most {bounds.MAX_STEPS} steps"):
        tiny_encoder.explain(A, B, steps=steps)


def test_steps_times_tokens_is_bounded(tiny_encoder, no_work, monkeypatch):
    sides = [api.make_side(tiny_encoder, t, w, None) for t, w in ((A, "a"), (B, "b"))]
    tokens = sum(int(s.content.sum()) for s in sides)
    monkeypatch.setattr(bounds, "MAX_TOKEN_STEPS", tokens * 10)
    with pytest.raises(ExplainError) as info:
        tiny_encoder.explain(A, B, steps=11)
    said = str(info.value)
    assert f"11 steps x {tokens} tokens" in said and f"{tokens * 10:,}" in said
    assert "steps <= 10" in said  # the most these texts take


def test_within_the_bounds_it_runs(tiny_encoder, monkeypatch):
    sides = [api.make_side(tiny_encoder, t, w, None) for t, w in ((A, "a"), (B, "b"))]
    monkeypatch.setattr(bounds, "MAX_TOKEN_STEPS", sum(int(s.content.sum()) for s in sides) * 2)
    assert tiny_encoder.explain(A, B, steps=2).steps == 2


def test_occlusion_takes_no_steps_so_none_are_bounded(tiny_encoder):
    assert tiny_encoder.explain(A, B, method="occlusion", steps=5000).steps == 0


def test_the_bounds_admit_what_the_product_offers():
    # the default on two texts of 512 tokens (e5's longest), and the Search page's slider (at
    # most 64 steps) on a query and a minilm chunk of 256 tokens
    assert 16 * 2 * 512 <= bounds.MAX_TOKEN_STEPS
    assert 64 * (256 + 64) <= bounds.MAX_TOKEN_STEPS
    assert 64 <= bounds.MAX_STEPS
