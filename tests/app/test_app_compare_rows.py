"""Search's "Compare with": the choice survives a change of the page's own index (and comes
back after that index was the compared one); the two result lists are laid out rank by rank,
one row of two columns per rank, so rank i sits beside rank i whatever the cards hold.
Two tiny random BERTs, no bundled model."""

from __future__ import annotations

import re
import shutil

import pytest
from apptest_helpers import assert_clean

QUERY, K = "rising oil prices", 6


@pytest.fixture(scope="module")
def tiny_trio(tmp_path_factory, tiny_model_dir, other_model_dir):
    """The app tests' corpus under a tiny random BERT (`a-tiny`, and a copy `c-copy`) and
    rebuilt with another one (`b-other`)."""
    from corpus import DOCS

    from indexer import build_index, rebuild_index

    root = tmp_path_factory.mktemp("tiny-trio")
    build_index(DOCS, root / "a-tiny", model=tiny_model_dir, preset="flat")
    rebuild_index(root / "a-tiny", root / "b-other", model=other_model_dir)
    shutil.copytree(root / "a-tiny", root / "c-copy")
    return root


@pytest.fixture
def search(page, app_env, tiny_trio, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(tiny_trio))
    monkeypatch.setenv("BERTSCOPE_DEFAULT_INDEX", "a-tiny")
    return lambda: page("search")


def test_compare_with_survives_a_change_of_index(search):
    at, compare = search(), "search-compare"
    at.sidebar.selectbox(key=compare).set_value("b-other").run()
    at.sidebar.selectbox(key="search-index").set_value("c-copy").run()
    assert at.sidebar.selectbox(key=compare).value == "b-other"  # still offered: kept
    at.sidebar.selectbox(key="search-index").set_value("b-other").run()
    assert at.sidebar.selectbox(key=compare).value == "(none)"  # the page's own: not offered
    assert "b-other" not in at.sidebar.selectbox(key=compare).options
    at.sidebar.selectbox(key="search-index").set_value("a-tiny").run()
    assert at.sidebar.selectbox(key=compare).value == "b-other"  # offered again: back
    at.sidebar.selectbox(key=compare).set_value("(none)").run()
    at.sidebar.selectbox(key="search-index").set_value("c-copy").run()
    assert at.sidebar.selectbox(key=compare).value == "(none)"  # an explicit none stays none


def card_ranks(column) -> list[int]:
    """The rank each result card in `column` shows (its title line: '<b>3. Title</b>')."""
    return [int(m.group(1)) for h in column.get("html")
            if (m := re.search(r"<b>(\d+)\. ", h.proto.body))]


def test_two_result_lists_are_laid_out_rank_by_rank(search):
    at = search()
    at.sidebar.slider(key="search-k").set_value(K)
    at.sidebar.radio(key="search-mode").set_value("dense")
    at.sidebar.selectbox(key="search-compare").set_value("b-other")
    at.text_input(key="search-query").set_value(QUERY).run()
    assert_clean(at)
    rows = [[c for c in block.children.values()] for block in at.main.children.values()
            if type(block).__name__ == "Block" and any(card_ranks(c) for c in
                                                       block.children.values())]
    assert [[card_ranks(c) for c in row] for row in rows] == [[[i], [i]] for i in
                                                             range(1, K + 1)]
    right = [h.proto.body for row in rows for h in row[1].get("html")]
    assert sum("rank-move" in b for b in right) == K  # each of the second list's cards: badge


def test_a_remembered_choice_returns_when_its_widget_is_drawn_again():
    """Streamlit drops the state of a widget a run does not draw (another page was open)."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st
        from appkit.sticky import sticky_selectbox

        if st.checkbox("show", value=True, key="show"):
            sticky_selectbox("Compare with", ["(none)", "x", "y"], key="cmp")

    at = AppTest.from_function(script).run()
    at.sidebar.selectbox(key="cmp").set_value("y").run()
    at.checkbox(key="show").uncheck().run()
    at.checkbox(key="show").check().run()
    assert at.sidebar.selectbox(key="cmp").value == "y"


def test_the_second_model_comes_back_after_being_the_first(app_env):
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st
        from appkit.config import AppConfig
        from appkit.model_picker import pick_second_model

        first = st.sidebar.selectbox("Model", ["minilm", "e5-multilingual"], key="first")
        st.write(f"second: {pick_second_model(AppConfig.from_env(), key='cmp', first=first)}")

    at = AppTest.from_function(script).run()
    at.sidebar.selectbox(key="cmp").set_value("e5-multilingual (bundled)").run()
    at.sidebar.selectbox(key="first").set_value("e5-multilingual").run()
    assert at.markdown[0].value == "second: None"
    at.sidebar.selectbox(key="first").set_value("minilm").run()
    assert at.markdown[0].value == "second: e5-multilingual"
