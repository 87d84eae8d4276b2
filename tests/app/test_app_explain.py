"""Search page, "Why this match": a heatmap, the chunk's words shaded as escaped HTML, the error."""

from __future__ import annotations

import pytest
from apptest_helpers import assert_clean, figures, texts, titles

pytestmark = pytest.mark.slow


def explain_first_hit(page, query: str, *, exact: bool = True):
    """Tick "Explain this hit" on the first hit (occlusion shows); `exact`: then ask for the
    integrated Jacobians."""
    at = page("search")
    at.sidebar.slider(key="search-explain-steps").set_value(2)
    at.text_input(key="search-query").set_value(query).run()
    (first, *_) = [c for c in at.checkbox if str(c.key).startswith("why-")]
    first.check().run()
    if exact:
        (button, *_) = [b for b in at.button if str(b.key).startswith("why-exact-")]
        button.click().run()
    return at


def test_occlusion_comes_first_and_the_exact_method_waits_to_be_asked(page, with_indexes):
    at = explain_first_hit(page, "rising oil prices", exact=False)
    assert_clean(at)
    assert any("Occlusion" in t and "drops" in t for t in texts(at.caption))
    assert [h for h in at.get("html") if '<span title="' in h.proto.body]  # words shaded
    assert not [f for f in figures(at) if f["data"][0]["type"] == "heatmap"]  # not yet
    (button, *_) = [b for b in at.button if str(b.key).startswith("why-exact-")]
    assert "token passes" in button.label and "2 steps" in button.label


def test_why_this_match_shows_heatmap_shading_and_error(page, with_indexes):
    at = explain_first_hit(page, "rising oil prices")
    assert_clean(at)
    assert "Query word × chunk word: share of the similarity" in titles(at)
    heat = next(f for f in figures(at) if f["data"][0]["type"] == "heatmap")
    assert [t.replace("\u200b", "") for t in heat["layout"]["yaxis"]["ticktext"]] == [
        "rising", "oil", "prices"]
    assert any("completeness error" in t and "cosine" in t for t in texts(at.caption))
    shaded = [h.proto.body for h in at.get("html") if '<span title="' in h.proto.body]
    assert shaded and "Oil" in shaded[0]


def test_explained_text_stays_escaped(page, with_indexes):
    at = explain_first_hit(page, "script injection in web pages")
    assert_clean(at)
    shaded = [h.proto.body for h in at.get("html") if '<span title="' in h.proto.body]
    assert shaded and "<script>" not in shaded[0] and "&lt;" in shaded[0]


def test_the_times_said_before_starting_are_this_machine_s_now(page, with_indexes, monkeypatch):
    """Issue 52: the occlusion's time is scaled by the load per core now, and the exact
    method's button gives the pace the occlusion of this chunk just ran at."""
    import os

    monkeypatch.setattr(os, "getloadavg", lambda: (24.0, 0.0, 0.0))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    at = page("search")
    at.text_input(key="search-query").set_value("rising oil prices").run()
    said = [t for t in texts(at.caption) if t.startswith("Occlusion re-encodes")]
    assert said and "token passes): about " in said[0]
    assert "at this machine's load now (12.0 per core" in said[0]
    at = explain_first_hit(page, "rising oil prices", exact=False)
    (button, *_) = [b for b in at.button if str(b.key).startswith("why-exact-")]
    assert "at this machine's pace now" in button.label and "25 s" not in button.label
    assert "took" in button.help and "just now" in button.help
