"""Held-out MLM / NSP scores run the model in eval mode and leave the encoder they wrap as they
found it: a pretrainer made for the job starts in training mode, and restoring its mode onto the
shared BertModel turned the encoder's dropout on."""

from __future__ import annotations

from encoder import load_encoder
from training.mlm.examples import chunk_documents, mlm_examples
from training.mlm.metrics import masked_token_scores, next_sentence_accuracy
from training.mlm.model import build_pretrainer

TEXTS = ["The cat sat on the mat. It was warm.", "A dog ran in the park. Then it slept."]


def test_scoring_leaves_the_wrapped_encoder_in_eval(tiny_model_dir):
    enc = load_encoder(tiny_model_dir, backend="torch")
    bert = enc.transformer
    assert not bert.training
    pretrainer = build_pretrainer(bert)  # a fresh wrapper: training mode at the top
    assert pretrainer.training
    tok = enc.tokenizer
    examples = mlm_examples(tok, TEXTS, chunk_documents(tok, TEXTS, 32), 32)
    assert masked_token_scores(pretrainer, tok, examples)["masked_tokens"] >= 0
    assert not any(m.training for m in bert.modules())
    pairs = [{**tok("The cat sat.", "It was warm."), "next_sentence_label": 0}]
    next_sentence_accuracy(pretrainer, tok, pairs)
    assert not any(m.training for m in bert.modules())
    assert pretrainer.cls.training  # the heads, trained next, keep their mode too
