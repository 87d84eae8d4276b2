"""Home and Models pages: the default path renders; trained runs show metrics and curves."""

from __future__ import annotations

import pytest
from apptest_helpers import assert_clean, figures, texts, titles, values

pytestmark = pytest.mark.slow


def test_home_renders_and_warms_the_default_encoder(page):
    at = page("home")
    assert_clean(at)
    assert any("Encoder ready: minilm" in t for t in texts(at.success))
    assert any("trained model folder" in t for t in texts(at.markdown))


def test_home_says_fill_mask_needs_its_head_trained_first(page, tmp_path, monkeypatch):
    """Issue 52: nothing told a newcomer that fill-mask needs the head-training job first."""
    from session_home import linked_home

    monkeypatch.setenv("BERTSCOPE_HOME", str(linked_home(tmp_path / "home", "exports")))
    at = page("home")
    assert_clean(at)
    hint = " ".join(texts(at.info))
    assert "Fill-mask and next-sentence prediction need an MLM head, which minilm does not " \
           "ship: the Pretraining page trains BERTScope's once, as a job (it took between " \
           "5.6 and 18 minutes" in hint


def test_models_lists_bundled_and_trained(page):
    at = page("models")
    assert_clean(at)
    bundled = at.table[0].value  # tables, not dataframes: they wrap, none is cut off
    assert set(bundled["name"]) == {"minilm", "e5-multilingual"}
    trained = at.table[1].value
    assert set(trained["folder"]) == {"tiny-run", "unfinished"}
    row = trained.set_index("folder").loc["tiny-run"]
    assert row["result"] == "dev Spearman 41.50 → 63.25"
    assert row["finished"] != "not finished"


def test_trained_run_shows_before_after_and_curve(page):
    at = page("models")
    at.selectbox[0].set_value("tiny-run").run()
    assert_clean(at)
    bars = next(f for f in figures(at) if "base vs fine-tuned" in titles_of(f))
    base, tuned = bars["data"]
    assert values(base["y"]) == pytest.approx([41.5, 40.2])
    assert values(tuned["y"]) == pytest.approx([63.25, 61.0])
    curve = next(f for f in figures(at) if not titles_of(f))
    dev = next(t for t in curve["data"] if t["name"] == "dev Spearman")
    assert values(dev["x"]) == [0, 20, 30]  # step 0 = the base model's score
    assert values(dev["y"]) == pytest.approx([41.5, 55.0, 63.25])
    recorded = at.dataframe[0].value.set_index("field")["value"]  # metrics.json, one row a field
    assert recorded["dev_after · spearman"] == "63.25" and recorded["stages"] == "none"
    assert not at.json  # no raw JSON tree


def test_models_page_reads_runs_through_the_training_library(page, monkeypatch):
    """The page asks `training.report.read_metrics` for a run's metrics: it reads no file."""
    import training.report

    asked = []

    def read_metrics(folder):
        asked.append(folder.name)
        return {"model": "stand-in", "dev_before": {"spearman": 10.0},
                "dev_after": {"spearman": 12.5}}

    monkeypatch.setattr(training.report, "read_metrics", read_metrics)
    at = page("models")
    assert_clean(at)
    assert sorted(asked) == ["tiny-run", "unfinished"]
    row = at.table[1].value.set_index("folder").loc["unfinished"]
    assert (row["base model"], row["result"]) == ("stand-in", "dev Spearman 10.00 → 12.50")


def test_unfinished_run_says_so_and_loads_on_request(page):
    at = page("models")
    at.selectbox[0].set_value("unfinished").run()
    assert not at.exception
    assert any("no metrics.json" in t for t in texts(at.info))
    assert not figures(at)
    at.toggle[0].set_value(True).run()
    assert_clean(at)
    config = at.dataframe[-1].value.set_index("field")["value"]  # the loaded model's EncoderInfo
    assert config["layers"] == "2" and not at.json


def titles_of(fig: dict) -> str:
    title = fig.get("layout", {}).get("title", {})
    return title.get("text", "") if isinstance(title, dict) else str(title)


def test_no_runs_root_is_a_sentence(page, monkeypatch, tmp_path):
    monkeypatch.setenv("BERTSCOPE_RUNS_ROOT", str(tmp_path / "nothing-here"))
    at = page("models")
    assert_clean(at)
    assert any("No trained model folders" in t for t in texts(at.info))
    assert titles(at) == []


def test_an_adapted_model_shows_its_check_not_none(page, app_env, tmp_path, monkeypatch,
                                                   tiny_model_dir):
    """Issue 52: an adapted model's row read "None / None" (it has no dev Spearman); its result
    is the held-out check it was judged by."""
    import json
    import shutil

    run = tmp_path / "runs" / "bbc-news-adapted"
    shutil.copytree(tiny_model_dir, run)
    adapt = {"check": {"documents": 222, "queries": 444}, "before": {"ndcg@10": 0.9249},
             "after": {"ndcg@10": 0.9278}, "verdict": {"better": False, "text": "no gain"}}
    (run / "metrics.json").write_text(json.dumps({"model": "minilm", "pooling": "mean",
                                                  "dev_before": None, "dev_after": None,
                                                  "adapt": adapt}))
    monkeypatch.setenv("BERTSCOPE_RUNS_ROOT", str(tmp_path / "runs"))
    at = page("models")
    assert_clean(at)
    row = at.table[1].value.set_index("folder").loc["bbc-news-adapted"]
    assert row["result"] == "check nDCG@10 0.9249 → 0.9278 (no measured gain)"
    assert "None" not in " ".join(map(str, row.tolist()))
