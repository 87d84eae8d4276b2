"""App fixtures: folders the pages read (runs, indexes, data) set up once, and a page runner."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from browser_fixtures import (  # noqa: F401  (the real-browser tests' fixtures, set up once)
    app_url,
    browser,
    browser_index_root,
    default_index,
    tab,
)

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "app"

PAGES = {
    "home": APP / "Home.py",
    "search": APP / "pages" / "1_Search.py",
    "attention": APP / "pages" / "2_Attention.py",
    "disambiguation": APP / "pages" / "3_Disambiguation.py",
    "index": APP / "pages" / "4_Index.py",
    "models": APP / "pages" / "5_Models.py",
    "pretraining": APP / "pages" / "6_Pretraining.py",
}

METRICS = {
    "model": "tiny-bert", "pooling": "mean", "prompt_prefix": "",
    "dev": {"path": "sts-dev.tsv", "rows": 100, "bad_rows": 0},
    "dev_before": {"path": "sts-dev.tsv", "kind": "sts", "pairs": 100, "spearman": 41.5,
                   "pearson": 40.2, "bad_rows": 0},
    "dev_after": {"path": "sts-dev.tsv", "kind": "sts", "pairs": 100, "spearman": 63.25,
                  "pearson": 61.0, "bad_rows": 0},
    "stages": [], "wall_s": 12.0, "started_at": "2026-01-01T00:00:00",
    "finished_at": "2026-01-01T00:01:00",
}
LOG = [
    {"stage": 0, "step": 10, "loss": 2.5},
    {"stage": 0, "step": 20, "loss": 1.9, "eval_dev_spearman_cosine": 0.55},
    {"stage": 0, "step": 30, "loss": 1.4, "eval_dev_spearman_cosine": 0.6325},
]


@pytest.fixture(scope="session")
def runs_root(tmp_path_factory, tiny_model_dir) -> Path:
    """A runs folder with one finished (tiny, random) training run and one without metrics."""
    root = tmp_path_factory.mktemp("runs")
    run = root / "tiny-run"
    shutil.copytree(tiny_model_dir, run)
    (run / "metrics.json").write_text(json.dumps(METRICS), encoding="utf-8")
    (run / "training_log.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in LOG), encoding="utf-8")
    shutil.copytree(tiny_model_dir, root / "unfinished")
    return root


@pytest.fixture(scope="session")
def app_folders(runs_root, tmp_path_factory) -> dict[str, Path]:
    """The test folders the app's configuration points at, made once (no index yet: see
    `index_root`)."""
    return {"BERTSCOPE_RUNS_ROOT": runs_root, "BERTSCOPE_DATA": tmp_path_factory.mktemp("data"),
            "BERTSCOPE_INDEX_ROOT": tmp_path_factory.mktemp("no-indexes")}


@pytest.fixture
def app_env(app_folders, monkeypatch) -> dict[str, Path]:
    """Point the app's configuration at the test folders for one test: `$BERTSCOPE_DATA` is every
    part's data root, so it must not stay set for the tests that read the real data sets."""
    for name, folder in app_folders.items():
        monkeypatch.setenv(name, str(folder))
    return app_folders


@pytest.fixture
def page(app_env) -> Callable:
    """`page("attention")` → a fresh AppTest of that page, already run once."""
    from streamlit.testing.v1 import AppTest

    def run(name: str, timeout: float = 240) -> AppTest:
        return AppTest.from_file(str(PAGES[name]), default_timeout=timeout).run()

    return run


@pytest.fixture(scope="session")
def index_root(tmp_path_factory) -> Path:
    """Two indexes: `a-news` (the test corpus with minilm) and `z-broken` (a damaged copy)."""
    from corpus import DOCS

    from indexer import build_index

    root = tmp_path_factory.mktemp("indexes")
    build_index(DOCS, root / "a-news", model="minilm", preset="flat")
    broken = root / "z-broken"
    shutil.copytree(root / "a-news", broken)
    faiss_file = next(broken.glob("v*/vectors.faiss"))
    faiss_file.write_bytes(faiss_file.read_bytes()[:100])  # truncated: the wrong size
    return root


@pytest.fixture
def with_indexes(app_env, index_root, monkeypatch) -> Path:
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(index_root))
    return index_root
