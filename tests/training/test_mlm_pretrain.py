"""`python -m training mlm` end to end on a tiny random BERT: the output folder is an encoder
that `load_encoder` and `fit --model` read, carries its heads and metrics; head-only training
leaves the encoder's weights alone."""

from __future__ import annotations

import json
import math

import pytest
import torch

from training.cli import main

TEXTS = [
    "The cat sat on the mat. The dog ran in the park. Birds sing in the morning.",
    "Stocks fell sharply today. Investors worried about rates. Banks lost the most.",
    "The team won the final. Fans filled the streets. The coach thanked everyone.",
    "Rain is expected tomorrow. Temperatures will drop. Roads may be icy at night.",
] * 6


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("mlm-corpus") / "corpus.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(TEXTS))
                    + "not json\n" + json.dumps({"id": "x", "body": "no text field"}) + "\n",
                    encoding="utf-8")
    return path


def _args(model, corpus, out, *extra):
    return ["--threads", "1", "mlm", "--model", str(model), "--corpus", str(corpus), "--out",
            str(out), "--max-steps", "3", "--batch-size", "4", "--max-length", "32",
            "--logging-steps", "1", "--no-progress", *extra]


@pytest.fixture(scope="module")
def full_run(tiny_model_dir, corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("mlm-run") / "run"
    assert main(_args(tiny_model_dir, corpus, out, "--nsp", "--whole-word")) == 0
    return out


def test_output_loads_as_an_encoder_with_heads(full_run):
    from encoder import load_encoder

    enc = load_encoder(full_run)
    assert enc.encode(["a sentence"]).shape == (1, enc.dim)
    assert len(enc.fill_mask("The [MASK] sat on the mat.", top_k=3)[0].candidates) == 3
    assert 0 < enc.next_sentence("The cat sat.", "The dog ran.") < 1
    for name in ("mlm_heads.safetensors", "mlm_heads.json", "metrics.json", "curve.png",
                 "README.md", "training_log.jsonl", "modules.json"):
        assert (full_run / name).is_file(), name
    assert not (full_run / "checkpoints").exists()


def test_metrics_hold_before_after_nsp_and_bad_rows(full_run):
    m = json.loads((full_run / "metrics.json").read_text())
    for when in ("before", "after"):
        assert {"top1", "top5", "perplexity", "masked_tokens"} <= set(m[when])
        assert 0 <= m[when]["top1"] <= m[when]["top5"] <= 1
        assert 0 <= m[when]["nsp"]["accuracy"] <= 1
    assert m["steps"] == 3 and m["mode"] == "full" and m["whole_word"] and m["nsp"]
    assert len(m["corpus"][0]["skipped"]) == 2  # the broken line and the row without text
    assert m["wall_s"] > 0


def test_bert_for_pretraining_view(full_run):
    from safetensors.torch import load_file

    from training.mlm import load_pretraining_model

    model = load_pretraining_model(full_run)
    saved = load_file(str(full_run / "mlm_heads.safetensors"))
    assert torch.equal(model.cls.predictions.transform.dense.weight,
                       saved["cls.predictions.transform.dense.weight"])
    assert model.cls.predictions.decoder.weight is model.bert.get_input_embeddings().weight


def test_fit_continues_from_the_pretrained_folder(full_run, sts_file, tmp_path):
    out = tmp_path / "siamese"
    argv = ["--threads", "1", "fit", "--model", str(full_run), "--train", str(sts_file),
            "--loss", "cosine", "--out", str(out), "--batch-size", "4", "--max-length", "32",
            "--no-progress"]
    assert main(argv) == 0
    assert (out / "metrics.json").is_file()


def test_head_only_leaves_the_encoder_unchanged(tiny_model_dir, corpus, tmp_path):
    from encoder import load_encoder

    out = tmp_path / "heads"
    assert main(_args(tiny_model_dir, corpus, out, "--head-only")) == 0
    base = load_encoder(tiny_model_dir).transformer.state_dict()
    after = load_encoder(out).transformer.state_dict()
    assert all(torch.equal(base[k], after[k]) for k in base)
    m = json.loads((out / "metrics.json").read_text())
    assert m["mode"] == "head-only" and m["after"]["perplexity"] < m["before"]["perplexity"]


def test_bad_flags_end_in_one_line(tiny_model_dir, corpus, tmp_path, capsys):
    for flag, value, says in [("--mlm-probability", "1.5", "must be < 1, got 1.5"),
                              ("--epochs", "inf", "must be a finite number")]:
        with pytest.raises(SystemExit) as stop:  # argparse refuses it, naming the flag
            main(_args(tiny_model_dir, corpus, tmp_path / "x", flag, value))
        assert stop.value.code == 2
        assert f"argument {flag}: {says}" in capsys.readouterr().err
    assert main(_args(tiny_model_dir, tmp_path / "missing.jsonl", tmp_path / "y")) == 2
    assert "corpus not found" in capsys.readouterr().err


@pytest.mark.parametrize("change", [{"epochs": math.inf}, {"learning_rate": math.inf},
                                    {"mlm_probability": 0.0}])
def test_the_library_refuses_what_the_flags_refuse(change):
    from training.errors import TrainingError
    from training.mlm import MlmConfig
    from training.mlm.pretrain import check_config

    with pytest.raises(TrainingError, match="must be"):
        check_config(MlmConfig(model="minilm", corpus=("c.jsonl",), out="o", **change))


def test_resume_after_a_start_that_never_trained_starts_afresh(corpus, tmp_path):
    from encoder import EncoderNotFoundError
    from training.mlm import MlmConfig, pretrain

    config = MlmConfig(model=str(tmp_path / "no-model"), corpus=(str(corpus),),
                       out=str(tmp_path / "r"), max_steps=1, show_progress=False)
    for resume in (False, True):  # the second: the model error again, not "run.json unreadable"
        with pytest.raises(EncoderNotFoundError):
            pretrain(config, resume=resume)


def test_resume_continues_from_the_last_checkpoint(tiny_model_dir, corpus, tmp_path):
    from transformers import TrainerCallback

    from training.mlm import MlmConfig, pretrain

    class StopAtThree(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            if state.global_step == 3:
                raise KeyboardInterrupt

    config = MlmConfig(model=str(tiny_model_dir), corpus=(str(corpus),), out=str(tmp_path / "r"),
                       max_steps=4, save_steps=2, batch_size=4, max_length=32,
                       show_progress=False)
    with pytest.raises(KeyboardInterrupt):
        pretrain(config, callbacks=[StopAtThree()])
    result = pretrain(config, resume=True)
    assert result.metrics["resumed_from"] == "checkpoint-2"
    assert result.metrics["steps"] == 4
