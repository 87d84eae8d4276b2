"""The app on a Milvus index: a file `NAME.milvus` in the index root, holding the index's
address, is listed beside the index folders; the Search and Index pages work on it as on a
folder (milvus-lite in tmp_path, the tiny random encoder)."""

from __future__ import annotations

import pytest
from apptest_helpers import assert_clean, texts

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


@pytest.fixture
def milvus_root(app_env, tmp_path, tiny_encoder, monkeypatch):
    from indexer import build_index

    root = tmp_path / "indexes"
    root.mkdir()
    address = f"milvus://{tmp_path}/app.db?collection=news"
    docs = [{"id": f"n{i}", "title": f"Story {i}", "text": text, "metadata": {"topic": topic}}
            for i, (text, topic) in enumerate([("oil prices climb again", "business"),
                                                ("the team won the final", "sport"),
                                                ("rain is expected tomorrow", "weather")])]
    build_index(docs, address, model=tiny_encoder, preset="flat")
    (root / "news.milvus").write_text(address + "\n", encoding="utf-8")
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(root))
    return root


def test_search_lists_and_searches_a_milvus_index(page, milvus_root):
    at = page("search")
    assert_clean(at)
    assert at.sidebar.selectbox[0].options == ["news.milvus"]
    assert any("3 documents" in t for t in texts(at.info))
    at.sidebar.radio[0].set_value("lexical").run()
    at.text_input(key="search-query").set_value("oil prices").run()
    assert_clean(at)
    heads = [h.proto.body for h in at.get("html") if h.proto.body.startswith("<div><b>")]
    assert heads and "Story 0" in heads[0] and "doc n0" in heads[0]


def test_index_page_shows_a_milvus_indexs_stats(page, milvus_root):
    at = page("index")
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Documents"] == "3" and metrics["Stored in"] == "Milvus"
    assert "Size on disk" not in metrics  # not known here: not shown as 0.0 MB
    assert any("(`milvus FLAT`)" in t for t in texts(at.markdown))


def test_a_pointer_that_names_no_address_is_an_error_on_the_page(page, app_env, tmp_path,
                                                                  monkeypatch):
    root = tmp_path / "indexes"
    root.mkdir()
    (root / "bad.milvus").write_text("/not/an/address\n", encoding="utf-8")
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(root))
    at = page("index")
    assert any("should hold one Milvus address" in t for t in texts(at.error))
