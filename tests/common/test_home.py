"""One data root for every part (recipes, benchmarks, tests, the app's server-side corpora)."""

from __future__ import annotations

from pathlib import Path

from appkit.config import AppConfig

from common.home import REPO, data_root


def test_data_root_is_explicit_then_the_environment_then_beside_the_repository(monkeypatch,
                                                                                tmp_path):
    monkeypatch.delenv("BERTSCOPE_DATA", raising=False)
    assert data_root() == REPO.parent / "shared" / "data"
    monkeypatch.setenv("BERTSCOPE_DATA", str(tmp_path))
    assert data_root() == tmp_path
    assert data_root("~/elsewhere") == Path.home() / "elsewhere"


def test_the_app_reads_the_same_root(monkeypatch, tmp_path):
    monkeypatch.setenv("BERTSCOPE_DATA", str(tmp_path))
    monkeypatch.setenv("BERTSCOPE_DATA_ROOT", "/not/read")  # the old app-only name is gone
    assert AppConfig.from_env().data_root == tmp_path
