"""Issue 52 (newcomer): explanations say an honest time before they start. Occlusion's estimate
is its work at the quiet pace times this machine's load per core now (0.5 s was promised at
load 12, where it took 49.6 s); the exact method's is the pace the occlusion of the same chunk
just ran at (a fixed "~25 s for a ~55-token chunk" became 38.6 min on a 110-token one)."""

from __future__ import annotations

import pytest

from encoder.explain import explain, occlusion_work, work_units
from encoder.explain.estimate import (
    JVP_PER_PASS,
    exact_estimate_s,
    load_per_core,
    occlusion_estimate_s,
    said,
)

QUERY = "rising oil prices"
CHUNK = ("Rising oil prices in Europe pushed inflation above the central bank target while "
         "manufacturing output slowed across the eurozone.")


def test_an_occlusion_records_its_time_and_work(tiny_torch):
    quick = explain(tiny_torch, QUERY, CHUNK, method="occlusion")
    assert quick.seconds > 0
    assert quick.units == occlusion_work(tiny_torch, QUERY, CHUNK) == \
        (len(quick.words_a) + 1) * len(quick.tokens_a) + \
        (len(quick.words_b) + 1) * len(quick.tokens_b)


def test_the_occlusion_estimate_grows_with_the_load_and_the_model():
    quiet = occlusion_estimate_s(2700, 6, 384, load=1.0)
    assert quiet == pytest.approx(0.5)  # what bench/results/explain-timing.md measured
    assert occlusion_estimate_s(2700, 6, 384, load=12.0) == pytest.approx(6.0)
    assert occlusion_estimate_s(2700, 12, 384, load=1.0) == pytest.approx(1.0)  # e5: 2x


def test_the_load_is_read_per_core(monkeypatch):
    import os

    monkeypatch.setattr(os, "getloadavg", lambda: (24.0, 0.0, 0.0))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert load_per_core() == 12.0
    monkeypatch.setattr(os, "getloadavg", lambda: (0.3, 0.0, 0.0))
    assert load_per_core() == 1.0  # a quiet machine is the measured pace, never faster


def test_the_exact_estimate_is_the_pace_just_measured(tiny_torch):
    """Twice the chunk: the work grows about four times (steps x tokens²), and so does the
    estimate, at the pace this machine just showed."""
    work = work_units(tiny_torch, QUERY, CHUNK, steps=64)
    longer = work_units(tiny_torch, QUERY, f"{CHUNK} {CHUNK}", steps=64)
    assert 3 < longer / work < 4.5
    assert exact_estimate_s(2.0, 1000, work) == pytest.approx(2.0 / 1000 * JVP_PER_PASS * work)
    assert said(40) == "about 40 s" and said(2316) == "about 39 min" and said(9000) == \
        "about 2.5 h"
