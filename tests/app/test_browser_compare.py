"""Search's two-index comparison in a real browser (the fixtures of browser_fixtures.py: the
small pair news-minilm / news-e5 beside the default index): rank i of each list starts at the
same height although the cards differ (a Chinese query: e5 ranks Chinese documents, minilm reads
[UNK]s), and "Compare with" keeps its choice while the page's own index changes."""

from __future__ import annotations

import re

import pytest
from browser_fixtures import ask, choose, open_search_on, shot, wait_idle

pytestmark = [pytest.mark.slow, pytest.mark.browser]
K = 10


def expect_compare(page, value: str) -> None:
    """'Compare with' shows `value` (waited for: the rerun may not have started yet)."""
    from playwright.sync_api import expect

    expect(page.get_by_role("combobox", name="Compare with")).to_have_value(value,
                                                                           timeout=60_000)


def test_ranks_of_two_indexes_sit_side_by_side(tab, app_url):
    open_search_on(tab, app_url, "news-minilm")
    tab.locator('[data-testid="stSidebar"]').get_by_text("dense", exact=True).click()
    wait_idle(tab)
    choose(tab, "Compare with", "news-e5")
    wait_idle(tab)
    ask(tab, "苹果的新手机", until=tab.get_by_text("news-e5 against news-minilm"))
    tab.locator(".rank-move").nth(K - 1).wait_for()
    wait_idle(tab)
    # every card's title '<b>3. Title</b>', wherever the layout puts it; its card: the bordered
    # block around it
    titles = tab.locator("b").filter(has_text=re.compile(r"^\d+\. "))
    cards: dict[int, list[dict]] = {}
    for i in range(titles.count()):
        title = titles.nth(i)
        box = title.locator('xpath=ancestor::div[@data-testid="stVerticalBlock"][1]') \
            .bounding_box()
        cards.setdefault(int(title.inner_text().split(".")[0]), []).append(box)
    assert sorted(cards) == list(range(1, K + 1)) and all(len(b) == 2 for b in cards.values())
    for rank, (a, b) in cards.items():
        assert abs(a["y"] - b["y"]) <= 1, (rank, a, b)  # rank i beside rank i
        assert a["x"] != b["x"]
    assert any(round(a["height"]) != round(b["height"]) for a, b in cards.values()), \
        "no two cards of a rank differ in height: the check would prove nothing"
    shot(tab, "16-search-two-indexes-rank-rows")

    choose(tab, "Index", "bbc-news")  # the comparison still offered: kept, and run
    tab.get_by_text("news-e5 against bbc-news").wait_for()
    wait_idle(tab)
    expect_compare(tab, "news-e5")
    choose(tab, "Index", "news-e5")  # now the page's own: not offered
    expect_compare(tab, "(none)")
    wait_idle(tab)
    choose(tab, "Index", "news-minilm")  # offered again: back, and run
    expect_compare(tab, "news-e5")
    tab.get_by_text("news-e5 against news-minilm").wait_for()
