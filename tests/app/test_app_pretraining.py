"""Pretraining page: the 80/10/10 draw token by token, fill-mask bars, NSP, base vs trained;
a bundled model without heads is offered (never silently given) a head training, which runs as
a job (test_app_head_jobs.py)."""

from __future__ import annotations

import shutil

import pytest
from apptest_helpers import assert_clean, figures, texts, titles

pytestmark = pytest.mark.slow


@pytest.fixture
def mlm_runs(tiny_model_dir, tmp_path, monkeypatch):
    """A runs root with two tiny models carrying (untrained) heads and one without; an empty
    $BERTSCOPE_HOME, so the bundled models have no cached heads."""
    from encoder import load_encoder
    from encoder.heads import new_heads, save_heads

    root = tmp_path / "runs"
    for name in ("tiny-mlm", "tiny-mlm-b", "tiny-plain"):
        shutil.copytree(tiny_model_dir, root / name)
        if name != "tiny-plain":
            enc = load_encoder(root / name)
            save_heads(root / name, new_heads(enc.transformer), {"mlm": True, "nsp": True})
    monkeypatch.setenv("BERTSCOPE_RUNS_ROOT", str(root))
    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    monkeypatch.setenv("BERTSCOPE_HOME", str(home))
    return root


def choose_model(at, label: str):
    at.sidebar.selectbox[1].set_value(label).run()
    return at


def test_bundled_model_without_heads_draws_and_offers_training(page, mlm_runs):
    at = page("pretraining")
    assert_clean(at)
    draw = figures(at)[0]
    cells = draw["data"][0]["text"]
    assert cells[0][0] == "[CLS]"
    assert any("**80 %**" in t and "**10 %**" in t for t in texts(at.markdown))
    assert any("ships without an MLM head" in t for t in texts(at.info))
    offer = next(t for t in texts(at.info) if "ships without" in t)
    assert "200 steps (it took between 5.6 and 18 minutes" in offer  # as seen, not garbled
    assert "on this machine's CPU" not in offer and "time left" in offer
    assert [b.label for b in at.button] == ["Train minilm's MLM + NSP heads now"]
    note = " ".join(texts(at.caption))  # said before the button is pressed
    assert "runs as a job in its own process" in note and "does not stop it" in note
    assert "python -m training mlm-heads minilm" in note
    assert not at.dataframe  # no predictions without a head


def test_the_offer_follows_the_heads_state_not_the_message(page, mlm_runs, monkeypatch):
    """Reworded library sentences change nothing: the page branches on `heads_status`'s state."""
    import encoder.fill_mask as fill_mask

    monkeypatch.setattr(fill_mask, "_no_head_message", lambda enc: f"reworded for {enc.name}")
    at = page("pretraining")
    assert_clean(at)
    assert [b.label for b in at.button] == ["Train minilm's MLM + NSP heads now"]
    at = choose_model(at, "tiny-plain (trained)")
    assert not at.button  # a folder without heads: explained, not trained here
    assert any(t.startswith("reworded for") for t in texts(at.info))


def test_trained_model_predicts_each_selected_position(page, mlm_runs):
    at = choose_model(page("pretraining"), "tiny-mlm (trained)")
    assert_clean(at)
    table = at.dataframe[0].value
    assert len(table) > 0 and set(table["draw"]) <= {"mask", "random", "kept"}
    assert at.metric[0].label == "MLM loss on this draw"
    seed_before = table["position"].tolist()
    at.number_input[0].set_value(5).run()
    assert at.dataframe[0].value["position"].tolist() != seed_before  # redrawn


def test_fill_mask_bars_per_mask_and_comparison(page, mlm_runs):
    at = choose_model(page("pretraining"), "tiny-mlm (trained)")
    at.radio[0].set_value("Fill in [MASK]").run()
    at.text_area[0].set_value("The [MASK] sat on the [MASK].").run()
    assert_clean(at)
    assert titles(at) == ["[MASK] #1", "[MASK] #2"]
    assert len(figures(at)[0]["data"]) == 1
    at.sidebar.selectbox[2].set_value("tiny-mlm-b (trained)").run()
    assert_clean(at)
    assert len(figures(at)[0]["data"]) == 2  # base beside the other model


def test_next_sentence_probability(page, mlm_runs):
    at = choose_model(page("pretraining"), "tiny-mlm (trained)")
    at.radio[0].set_value("Next sentence").run()
    assert_clean(at)
    bar = figures(at)[0]
    is_next, not_next = bar["data"][0]["x"][0], bar["data"][1]["x"][0]
    assert is_next + not_next == pytest.approx(1)
    assert any("RoBERTa" in t for t in texts(at.markdown))


def test_model_without_heads_and_bad_input(page, mlm_runs):
    at = choose_model(page("pretraining"), "tiny-plain (trained)")
    assert_clean(at)
    assert any("has no MLM head" in t for t in texts(at.info))
    at.radio[0].set_value("Fill in [MASK]").run()
    at.text_area[0].set_value("no mask here").run()
    assert any("Write [MASK]" in t for t in texts(at.info))
