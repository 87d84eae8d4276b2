"""Without a loss, `fit` picks one from the data kind and says which."""

from __future__ import annotations

import logging

import pytest

from training import FitConfig, Stage, TrainingError, fit
from training.default_loss import DEFAULT_LOSS, default_loss


@pytest.mark.parametrize(
    ("kind", "loss"),
    [("scored", "cosent"), ("binary", "cosent"), ("nli", "mnrl"), ("triplet", "mnrl")],
)
def test_default_loss_per_kind(kind, loss):
    assert default_loss({kind}) == loss == DEFAULT_LOSS[kind]


def test_kinds_with_different_defaults_need_a_loss():
    assert default_loss({"scored", "binary"}) == "cosent"  # same default: fine together
    with pytest.raises(TrainingError, match="nli and scored data in one stage .* pass --loss"):
        default_loss({"scored", "nli"}, ("a.jsonl", "b.jsonl"))


def test_fit_says_which_loss_it_chose(tiny_model_dir, sts_file, nli_file, tmp_path, caplog):
    config = FitConfig(
        model=str(tiny_model_dir),
        stages=(Stage((str(nli_file),)), Stage((str(sts_file),))),  # no loss given
        out=str(tmp_path / "out"),
        batch_size=3,
        max_seq_length=32,
        show_progress=False,
    )
    with caplog.at_level(logging.INFO, logger="bertscope.training"):
        result = fit(config)
    stages = result.metrics["stages"]
    assert [s["loss"] for s in stages] == ["mnrl", "cosent"]
    assert all(s["tasks"][0]["default_loss"] for s in stages)
    said = [r.getMessage() for r in caplog.records if "no loss given" in r.getMessage()]
    assert len(said) == 2
    assert "(nli data): using the default for that kind, 'mnrl'" in said[0]
    assert "(scored data): using the default for that kind, 'cosent'" in said[1]


def test_fit_refuses_mixed_kinds_without_a_loss(tiny_model_dir, sts_file, nli_file, tmp_path):
    config = FitConfig(model=str(tiny_model_dir), stages=(Stage((str(sts_file), str(nli_file))),),
                       out=str(tmp_path / "out"))
    with pytest.raises(TrainingError, match="different default losses"):
        fit(config)
    assert not (tmp_path / "out").exists()  # checked before the run starts
