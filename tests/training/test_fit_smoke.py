"""A real fine-tune: minilm on 64 STS-B pairs for one epoch gets better on them, and the saved
folder is a normal model that `load_encoder` reads back."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training import FitConfig, Stage, fit, load_pairs


def _mse_to_gold(model, data) -> float:
    """CosineSimilarityLoss over all pairs: mean (cos(u, v) - score/5)^2."""
    u = model.encode(list(data.dataset["sentence1"]), normalize_embeddings=True)
    v = model.encode(list(data.dataset["sentence2"]), normalize_embeddings=True)
    cos = (u * v).sum(axis=1)
    return float(np.mean((cos - np.asarray(data.dataset["score"]) / 5) ** 2))


@pytest.fixture(scope="module")
def smoke(stsb64, tmp_path_factory):
    from encoder import load_encoder

    before = load_encoder("minilm").model
    data = load_pairs(stsb64)
    loss_before = _mse_to_gold(before, data)
    config = FitConfig(
        model="minilm",
        stages=(Stage((str(stsb64),), "cosine", 1.0),),
        out=str(tmp_path_factory.mktemp("smoke") / "run"),
        dev=str(stsb64),
        batch_size=16,
        learning_rate=5e-5,
        eval_steps=1000,
        logging_steps=1,
        max_seq_length=64,
        show_progress=False,
    )
    result = fit(config)
    return result, data, loss_before


@pytest.mark.slow
@pytest.mark.training
def test_one_epoch_lowers_the_loss_and_raises_spearman(smoke):
    result, data, loss_before = smoke
    from encoder import load_encoder

    after = load_encoder(result.out)
    assert _mse_to_gold(after.model, data) < loss_before
    assert result.dev_after > result.dev_before + 0.5
    stage = result.metrics["stages"][0]
    assert stage["steps"] == 4  # 64 pairs / batch 16, one epoch


@pytest.mark.slow
@pytest.mark.training
def test_saved_model_round_trips_through_load_encoder(smoke):
    from encoder import load_encoder

    result, data, _ = smoke
    enc = load_encoder(result.out)
    assert enc.info.pooling == "mean"
    assert enc.max_length == 64
    texts = list(data.dataset["sentence1"][:4])
    again = load_encoder(result.out).encode(texts)
    assert np.allclose(enc.encode(texts), again, atol=1e-6)
    # the dev score read back from the folder is the one the run reported
    from training import evaluate_sts

    score = evaluate_sts(enc.model, load_pairs(data.path))
    assert score.spearman == pytest.approx(result.dev_after, abs=1e-4)


@pytest.mark.slow
@pytest.mark.training
def test_run_folder_holds_metrics_log_curve_and_card(smoke):
    result, _, _ = smoke
    out = result.out
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dev_after"]["spearman"] == pytest.approx(result.dev_after)
    log = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    assert [e["step"] for e in log if "loss" in e] == [1, 2, 3, 4]
    assert any("eval_dev_spearman_cosine" in e for e in log)
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    card = (out / "README.md").read_text()
    for needed in ("minilm", "cosine", "learning rate 5e-05", "before training", "Date:"):
        assert needed in card
    assert "dev before training" in (out / "train.log").read_text()
    assert not (out / "checkpoints").exists()  # removed once the run finished
