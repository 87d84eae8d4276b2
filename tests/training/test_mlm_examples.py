"""Pretraining examples: sentences packed into chunks within the length budget, and NSP pairs
built as BERT did (B the true continuation, label 0, or a span of another document, label 1)."""

from __future__ import annotations

import pytest

from training.mlm import IS_NEXT, NOT_NEXT, chunk_documents, mlm_examples, nsp_examples
from training.mlm.texts import sentence_spans

NAMES = ("alpha", "beta", "gamma", "delta", "omega", "lambda", "sigma", "kappa", "theta", "zeta",
         "apple", "river", "house", "green", "music", "paper", "stone", "cloud", "table", "light")
DOCS = [  # every sentence starts with its document's name
    f"{n.title()} one begins here. {n.title()} two follows it. {n.title()} three is next. "
    f"{n.title()} four ends it."
    for n in NAMES
]
CHINESE = "我昨天去看了医生。他说我只是太累了，多休息就好。我爱吃火锅。最近天气很好。"


@pytest.fixture(scope="module")
def tok(tiny_encoder):
    return tiny_encoder.tokenizer


def test_sentences_split_in_english_and_chinese():
    assert [DOCS[0][s:e] for s, e in sentence_spans(DOCS[0])][:2] == [
        "Alpha one begins here.", "Alpha two follows it."]
    assert [CHINESE[s:e] for s, e in sentence_spans(CHINESE)][:2] == [
        "我昨天去看了医生。", "他说我只是太累了，多休息就好。"]


def test_chunks_keep_to_the_budget_and_to_one_document(tok):
    chunks = chunk_documents(tok, DOCS, max_length=16)
    assert len(chunks) > len(DOCS)  # the budget forces several chunks per document
    for c in chunks:
        ids = mlm_examples(tok, DOCS, [c], 16)[0]["input_ids"]
        assert len(ids) <= 16
        starts = [s for s, _ in c.sentences]
        assert starts == sorted(starts)


def test_nsp_pairs_are_continuations_or_other_documents(tok):
    chunks = chunk_documents(tok, DOCS, max_length=64)
    pairs = nsp_examples(tok, DOCS, chunks, 64, seed=0)
    assert pairs and {p["next_sentence_label"] for p in pairs} == {IS_NEXT, NOT_NEXT}
    share = sum(p["next_sentence_label"] == IS_NEXT for p in pairs) / len(pairs)
    assert 0.25 < share < 0.75
    for p in pairs:
        text = tok.decode(p["input_ids"], skip_special_tokens=False)
        a, b = (part.strip() for part in text.split("[SEP]")[:2])
        a_word, b_word = a.replace("[CLS]", "").split()[0], b.split()[0]  # its document
        if p["next_sentence_label"] == IS_NEXT:
            assert a_word == b_word  # the same document ("alpha" ... "alpha")
        else:
            assert a_word != b_word  # another document
        seg = p["token_type_ids"]
        assert seg[0] == 0 and seg[-1] == 1 and seg == sorted(seg)  # A then B


def test_nsp_pairs_are_repeatable(tok):
    chunks = chunk_documents(tok, DOCS, max_length=64)
    first = nsp_examples(tok, DOCS, chunks, 64, seed=3)
    assert first == nsp_examples(tok, DOCS, chunks, 64, seed=3)
    assert first != nsp_examples(tok, DOCS, chunks, 64, seed=4)


def test_word_ids_only_when_asked(tok):
    chunks = chunk_documents(tok, DOCS[:2], max_length=32)
    plain = mlm_examples(tok, DOCS[:2], chunks, 32)
    words = mlm_examples(tok, DOCS[:2], chunks, 32, words=True)
    assert "word_ids" not in plain[0]
    ids = words[0]["word_ids"]
    assert ids[0] == -1 and ids[-1] == -1 and len(ids) == len(words[0]["input_ids"])
