"""What a person reads on the pages, in a real browser, for the points of the truthful-app round:
a query the model cannot read is said to be one, the score says what it means, an over-long
query is cut with a warning (the browser used to drop the paste), two indexes with different
documents say so and each shows its own time, "Compare with" offers no copy of the model on
screen, and the Models page shows tables, not raw JSON. Screenshots: test-artifacts/app/2x-*."""

from __future__ import annotations

import re

import pytest
from browser_fixtures import ask, choose, open_search_on, shot, wait_idle

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def test_a_chinese_query_on_the_english_model_is_said_to_be_unreadable(tab, app_url):
    """The default index is minilm's: 苹果发布了新款手机 reads as 7 [UNK] of 9 tokens."""
    tab.goto(f"{app_url}/Search")
    wait_idle(tab)
    ask(tab, "苹果发布了新款手机", until=tab.get_by_text("tokens of this query are [UNK]"))
    tab.get_by_text("results in").first.wait_for()
    wait_idle(tab)
    assert tab.get_by_text("pick e5-multilingual").count() == 0  # the Search page has no picker
    # which action depends on this machine's jobs: a build stopped earlier is offered to resume
    fix = tab.get_by_role("button", name=re.compile(
        r"^(Build the Chinese index|Resume building the Chinese index|Building the Chinese "
        r"index|Search reviews-zh instead)"))
    fix.first.wait_for()  # a button is drawn after the text around it (a skeleton first)
    assert fix.count() == 1, "the warning offers the action that fixes it"
    assert tab.get_by_text(re.compile(r"^Score: ")).count() == 1, "the score's scale is said"
    shot(tab, "21-search-unreadable-query")


def test_a_query_over_the_limit_is_cut_with_a_warning(tab, app_url):
    tab.goto(f"{app_url}/Search")
    wait_idle(tab)
    ask(tab, "oil prices " * 250,  # 2,750 characters
        until=tab.get_by_text("The query has 2,750 characters; this page reads its first 2,000"))
    tab.get_by_text("results in").first.wait_for()
    wait_idle(tab)
    shot(tab, "22-search-long-query")


def test_two_indexes_with_different_documents_say_so_with_two_times(tab, app_url):
    open_search_on(tab, app_url, "bbc-news")
    choose(tab, "Compare with", "news-e5")
    wait_idle(tab)
    ask(tab, "oil prices", until=tab.get_by_text("These indexes hold different documents"))
    caption = tab.get_by_text("news-e5 against bbc-news").inner_text()
    assert re.search(r"bbc-news \d+ ms, news-e5 \d+ ms", caption), caption
    wait_idle(tab)
    shot(tab, "23-search-different-documents")


def test_compare_with_offers_no_copy_of_the_model_on_screen(tab, app_url):
    tab.goto(f"{app_url}/Attention")
    tab.locator(".js-plotly-plot .main-svg").first.wait_for()
    wait_idle(tab)
    tab.locator('[data-testid="stSelectbox"]').filter(has_text="Compare with").click()
    options = tab.get_by_role("option").all_inner_texts()
    tab.keyboard.press("Escape")
    assert "e5-multilingual (bundled)" in options
    assert not [o for o in options if o.startswith("minilm")], options


def test_models_page_shows_tables_not_raw_json(tab, app_url):
    tab.goto(f"{app_url}/Models")
    tab.locator('[data-testid="stTable"]').first.wait_for()
    wait_idle(tab)
    assert tab.locator('[data-testid="stJson"]').count() == 0
    shot(tab, "24-models-tables")
