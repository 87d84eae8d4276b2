"""Bad inputs fail with errors that name the offending item; odd but valid inputs encode."""

import logging

import numpy as np
import pytest


def test_empty_list_gives_empty_array(tiny_encoder):
    out = tiny_encoder.encode([])
    assert out.shape == (0, tiny_encoder.dim) and out.dtype == np.float32


@pytest.mark.parametrize(
    ("texts", "error", "fragment"),
    [
        (["ok", None], TypeError, "texts[1] is None"),
        (["ok", "fine", 3], TypeError, "texts[2] must be a string"),
        (["", "ok"], ValueError, "texts[0] is empty"),
        (["ok", "  \n\t "], ValueError, "texts[1] is empty"),
        (42, TypeError, "sequence of strings"),
        (["ok", "half a pair \ud83c"], ValueError, "texts[1] holds a lone surrogate"),
    ],
)
def test_bad_items_are_named(tiny_encoder, texts, error, fragment):
    with pytest.raises(error, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        tiny_encoder.encode(texts)


def test_bad_prompt_and_batch_size(tiny_encoder):
    with pytest.raises(ValueError, match="Invalid prompt 'doc'. Valid: None, query, passage"):
        tiny_encoder.encode(["x"], prompt="doc")
    with pytest.raises(ValueError, match="batch_size"):
        tiny_encoder.encode(["x"], batch_size=0)


def test_long_inputs_are_truncated_and_counted(tiny_encoder, caplog):
    long = "word " * 10_000  # 50,000 characters
    assert len(long) == 50_000
    with caplog.at_level(logging.WARNING, logger="bertscope.encoder"):
        out = tiny_encoder.encode_with_info([long, "short", long])
    assert out.vectors.shape == (3, tiny_encoder.dim) and out.truncated == 2
    assert "2 of 3 inputs exceed" in caplog.text
    assert tiny_encoder.encode_with_info(["short again"]).truncated == 0
    assert not hasattr(tiny_encoder, "last_truncated")  # per call, never shared state


@pytest.mark.parametrize(
    "text",
    [
        "control\x00\x01\x07chars\x1b[0m",
        "mixed 苹果 Ἀθῆναι مرحبا Привет 🍎",
        "\u200b\ufeffzero width",
    ],
)
def test_odd_but_valid_text_encodes_to_unit_vectors(tiny_encoder, text):
    out = tiny_encoder.encode([text])
    assert np.isfinite(out).all()
    assert np.allclose(np.linalg.norm(out, axis=1), 1, atol=1e-5)


@pytest.mark.parametrize("text", ["\x00\x01", "\u200b\u200d", "\ufeff", "\u00ad\u2060\t"])
def test_text_with_nothing_visible_is_empty(tiny_encoder, text):
    """The tokenizer drops these characters: the model saw only [CLS] [SEP], an arbitrary vector."""
    with pytest.raises(ValueError, match=r"texts\[1\] is empty"):
        tiny_encoder.encode(["ok", text])
