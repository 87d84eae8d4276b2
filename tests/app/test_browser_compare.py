"""Search's two-index comparison in a real browser (the fixtures of test_app_browser.py: the
small pair news-minilm / news-e5 beside the default index): rank i of each list starts at the
same height although the cards differ (a Chinese query: e5 ranks Chinese documents, minilm reads
[UNK]s), and "Compare with" keeps its choice while the page's own index changes."""

from __future__ import annotations

import pytest
from test_app_browser import (  # noqa: F401  (fixtures: pytest finds them by name here)
    app_url,
    ask,
    browser,
    choose,
    default_index,
    index_root,
    open_search_on,
    shot,
    tab,
    wait_idle,
)

pytestmark = [pytest.mark.slow, pytest.mark.browser]
K = 10


def compare_value(page) -> str:
    return page.get_by_role("combobox", name="Compare with").input_value()


def test_ranks_of_two_indexes_sit_side_by_side(tab, app_url):  # noqa: F811
    open_search_on(tab, app_url, "news-minilm")
    tab.locator('[data-testid="stSidebar"]').get_by_text("dense", exact=True).click()
    wait_idle(tab)
    choose(tab, "Compare with", "news-e5")
    wait_idle(tab)
    ask(tab, "苹果的新手机")
    tab.get_by_text("news-e5 against news-minilm").wait_for()
    tab.locator(".rank-move").nth(K - 1).wait_for()
    wait_idle(tab)
    rows = tab.locator('[data-testid="stHorizontalBlock"]').filter(
        has=tab.locator(".rank-move")).filter(has_not=tab.locator(".rank-gone-list"))
    assert rows.count() == K
    heights = set()
    for i in range(K):
        columns = rows.nth(i).locator('[data-testid="stColumn"]')
        titles = [columns.nth(j).locator("b").first for j in range(2)]  # '<b>3. Title</b>'
        cards = [titles[j].locator('xpath=ancestor::div[@data-testid="stVerticalBlock"][1]')
                 for j in range(2)]
        boxes = [card.bounding_box() for card in cards]
        ranks = [title.inner_text() for title in titles]
        assert all(r.startswith(f"{i + 1}. ") for r in ranks), ranks
        assert abs(boxes[0]["y"] - boxes[1]["y"]) <= 1, (i, boxes)
        heights.add(round(boxes[0]["height"]) == round(boxes[1]["height"]))
    assert False in heights, "some cards differ in height (else the check proves nothing)"
    shot(tab, "16-search-two-indexes-rank-rows")

    choose(tab, "Index", "bbc-news")  # the comparison still offered: kept
    wait_idle(tab)
    assert compare_value(tab) == "news-e5"
    choose(tab, "Index", "news-e5")  # now the page's own: not offered
    wait_idle(tab)
    assert compare_value(tab) == "(none)"
    choose(tab, "Index", "news-minilm")  # offered again: back
    wait_idle(tab)
    assert compare_value(tab) == "news-e5"
