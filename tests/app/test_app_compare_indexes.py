"""Search page, "Compare with": one query on two indexes side by side (the test corpus with
minilm, and the same documents rebuilt with a tiny random BERT), each result of the second
marked with its rank movement as `rank_movements` computes it."""

from __future__ import annotations

import re
import shutil

import pytest
from apptest_helpers import assert_clean, texts

pytestmark = pytest.mark.slow
QUERY, K = "rising oil prices", 4


@pytest.fixture(scope="module")
def compare_root(index_root, tmp_path_factory, tiny_model_dir):
    from indexer import rebuild_index

    root = tmp_path_factory.mktemp("compare")
    shutil.copytree(index_root / "a-news", root / "a-news")
    rebuild_index(root / "a-news", root / "b-tiny", model=tiny_model_dir)  # the 3-command loop
    return root


def test_two_indexes_side_by_side_with_rank_movement(page, app_env, compare_root, monkeypatch):
    from indexer import SemanticIndex, rank_movements

    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(compare_root))
    at = page("search")
    at.sidebar.slider(key="search-k").set_value(K)
    at.sidebar.radio(key="search-mode").set_value("dense")
    at.sidebar.selectbox(key="search-compare").set_value("b-tiny")
    at.text_input(key="search-query").set_value(QUERY).run()
    assert_clean(at)

    heads = texts(at.subheader)
    assert heads[0].startswith("a-news · minilm") and heads[1].startswith("b-tiny · tiny-bert")
    want = rank_movements(
        [h.doc_id for h in SemanticIndex.open(compare_root / "a-news").search(QUERY, k=K)],
        [h.doc_id for h in SemanticIndex.open(compare_root / "b-tiny").search(QUERY, k=K)])
    bodies = [h.proto.body for h in at.get("html")]
    shown = [re.search(r'class="rank-move rank-(\w+)"[^>]*>([^<]*)<', b).groups()
             for b in bodies if "rank-move" in b and "rank-gone-list" not in b]
    assert shown == [(m.kind, m.label) for m in want if m.kind != "gone"]
    assert {m.kind for m in want} - {"same"}  # a random model reorders: movement to show
    gone = [m for m in want if m.kind == "gone"]
    listing = [b for b in bodies if "rank-gone-list" in b]
    assert len(listing) == (1 if gone else 0)
    assert all(m.doc_id in listing[0] for m in gone)
    summary = next(t for t in texts(at.caption) if "b-tiny against a-news" in t)
    assert f"{sum(m.kind == 'new' for m in want)} new" in summary
    assert re.search(r"a-news \d+ ms, b-tiny \d+ ms", summary)  # both latencies
    assert not any("different documents" in t for t in texts(at.warning))  # a rebuild: same
    # each side explains its own hits
    assert {str(c.key)[:6] for c in at.checkbox} == {"why-a-", "why-b-"}


def test_compare_off_is_the_single_list(page, with_indexes):
    at = page("search")
    at.text_input(key="search-query").set_value(QUERY).run()
    assert_clean(at)
    assert not at.subheader and not [h for h in at.get("html") if "rank-move" in h.proto.body]


def test_compare_with_a_damaged_index_says_so(page, with_indexes):
    at = page("search")
    at.sidebar.selectbox(key="search-compare").set_value("z-broken")
    at.text_input(key="search-query").set_value(QUERY).run()
    assert not at.exception
    assert any("Cannot open the index z-broken" in t for t in texts(at.error))


def test_indexes_of_different_documents_are_said_to_be(page, app_env, compare_root, index_root,
                                                       monkeypatch):
    root = compare_root.parent / "different"
    if not root.exists():
        root.mkdir()
        shutil.copytree(compare_root / "a-news", root / "a-news")
        shutil.copytree(index_root / "a-news", root / "smaller")
        from indexer import SemanticIndex

        smaller = SemanticIndex.open(root / "smaller")
        smaller.delete([smaller.search(QUERY, k=1)[0].doc_id])
        smaller.save()
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(root))
    at = page("search")
    at.sidebar.selectbox(key="search-compare").set_value("smaller")
    at.text_input(key="search-query").set_value(QUERY).run()
    assert not at.exception
    assert any("different documents" in t for t in texts(at.warning))
