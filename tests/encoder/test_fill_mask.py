"""Pretraining heads: the decoder is the word-embedding matrix; fill_mask / next_sentence end to
end on a tiny random BERT; a model without heads gets an error that says how to train them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from encoder import MaskFill, NoHeadError, draw_mask, load_encoder, score_draw
from encoder.heads import HEADS_FILE, load_heads, new_heads, save_heads


@pytest.fixture(scope="module")
def headed(tiny_model_dir, tmp_path_factory):
    """A copy of the tiny model with fresh (untrained) MLM + NSP heads saved beside it."""
    folder = tmp_path_factory.mktemp("headed") / "tiny-with-heads"
    shutil.copytree(tiny_model_dir, folder)
    enc = load_encoder(folder)
    save_heads(folder, new_heads(enc.transformer), {"mlm": True, "nsp": True})
    return load_encoder(folder)


def test_decoder_shares_the_embedding_matrix(tiny_encoder):
    bert = tiny_encoder.transformer
    heads = new_heads(bert)
    embeddings = bert.get_input_embeddings().weight
    assert heads.predictions.decoder.weight is embeddings
    assert heads.predictions.decoder.bias is heads.predictions.bias
    hidden = torch.randn(3, bert.config.hidden_size)
    heads.predictions(hidden).sum().backward()  # a gradient on the decoder is one on the matrix
    assert embeddings.grad is not None and embeddings.grad.abs().sum() > 0
    embeddings.grad = None


def test_saved_heads_load_tied_and_leave_the_decoder_out(headed):
    from safetensors import safe_open

    with safe_open(str(headed.path + "/" + HEADS_FILE), "pt") as f:
        keys = set(f.keys())
    assert "cls.predictions.transform.dense.weight" in keys
    assert "cls.seq_relationship.weight" in keys
    assert not any("decoder" in k for k in keys)  # stored once, as the word embeddings
    heads = load_heads(Path(headed.path), headed.transformer)
    embeddings = headed.transformer.get_input_embeddings().weight
    assert heads.module.predictions.decoder.weight is embeddings


def test_fill_mask_end_to_end(headed):
    fills = headed.fill_mask("The [MASK] sat on the [MASK].", top_k=4)
    assert [type(f) for f in fills] == [MaskFill, MaskFill]
    assert fills[0].position < fills[1].position
    for f in fills:
        probs = [p for _, p in f.candidates]
        assert len(probs) == 4 and probs == sorted(probs, reverse=True)
        assert all(0 < p < 1 for p in probs) and sum(probs) <= 1 + 1e-6
        assert all(isinstance(t, str) and t for t, _ in f.candidates)


def test_next_sentence_is_a_probability(headed):
    p = headed.next_sentence("I went to the doctor.", "He said I was just tired.")
    assert 0 < p < 1


def test_score_draw_gives_a_loss_at_each_selected_position(headed):
    draw = draw_mask(headed.tokenizer, "The cat sat on the mat and the dog ran away. " * 3,
                     seed=2, probability=0.3)
    score = score_draw(headed, draw, top_k=3)
    assert score.positions == draw.selected
    assert len(score.losses) == len(score.predictions) == len(draw.selected)
    assert score.loss > 0 and score.perplexity > 1


def test_no_head_error_says_how_to_train_one(tiny_encoder):
    with pytest.raises(NoHeadError, match="python -m training mlm"):
        tiny_encoder.fill_mask("The [MASK] sat.")


def test_text_without_mask_and_bad_top_k(headed):
    with pytest.raises(ValueError, match=r"\[MASK\]"):
        headed.fill_mask("No mask here.")
    with pytest.raises(ValueError, match="top_k"):
        headed.fill_mask("The [MASK] sat.", top_k=0)


def test_mlm_only_heads_refuse_next_sentence(tiny_model_dir, tmp_path):
    folder = tmp_path / "mlm-only"
    shutil.copytree(tiny_model_dir, folder)
    save_heads(folder, new_heads(load_encoder(folder).transformer), {"mlm": True, "nsp": False})
    with pytest.raises(NoHeadError, match="--nsp"):
        load_encoder(folder).next_sentence("A.", "B.")


@pytest.mark.slow
def test_e5_reads_the_users_mask_and_names_its_heads_command(e5, tmp_path, monkeypatch):
    """`[MASK]` becomes e5's `<mask>` (else: "no [MASK] in the text"); no heads cached here."""
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path))
    with pytest.raises(NoHeadError, match="mlm-heads e5-multilingual"):
        e5.fill_mask("苹果[MASK]吃")


def test_info_says_whether_heads_exist(headed, tiny_encoder):
    assert headed.info.has_mlm_head
    assert not tiny_encoder.info.has_mlm_head


def test_masks_beyond_the_window_are_refused_not_dropped(headed):
    """Yesterday the first masks were filled and the rest dropped without a word."""
    window = headed.max_length
    text = "word " * (window - 5) + "The [MASK] sat on the [MASK] and the [MASK]."
    with pytest.raises(ValueError, match=rf"3 \[MASK\]s but only 1 fit.*{window}-token window"):
        headed.fill_mask(text)
    beyond = "word " * (window + 10) + "The [MASK] sat."
    with pytest.raises(ValueError, match=rf"1 \[MASK\] but none fit.*{window}-token window"):
        headed.fill_mask(beyond)
    fits = "The [MASK] sat. " + "word " * (window + 10)  # a long tail after the masks is fine
    assert len(headed.fill_mask(fits)) == 1
