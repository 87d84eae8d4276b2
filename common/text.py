"""`has_visible_text`: whether a text shows a reader anything; `check_text`, the one check of a
text input (encoder inputs, queries) built on it. Whitespace, control characters,
zero-width and bidi marks, a byte-order mark, soft hyphens, variation selectors and the Hangul /
Braille fillers show nothing, and BERT's tokenizer drops most of them: a text made only of them
encodes as [CLS] [SEP], one arbitrary vector that ranks for every query. Every place that refuses
an empty text refuses these the same way.

`lone_surrogate` finds what is not text at all: half of a UTF-16 pair (JSON's `\\ud800`), which
no tokenizer, SQLite or file can encode; `check_text` and the document checks name it."""

from __future__ import annotations

import unicodedata

# Cc control, Cf format (ZWSP..ZWJ, BOM, soft hyphen, bidi marks), Z* separators
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
_FILLERS = frozenset("\u034f\u115f\u1160\u2800\u3164\uffa0")  # grapheme joiner, Hangul, Braille


def _invisible(ch: str) -> bool:
    if ch.isspace() or ch in _FILLERS:
        return True
    cp = ord(ch)
    if 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:  # variation selectors
        return True
    return unicodedata.category(ch) in _INVISIBLE_CATEGORIES


def has_visible_text(text: str) -> bool:
    """True when `text` holds at least one character a reader can see."""
    return not all(_invisible(ch) for ch in text)


# what the "is empty" errors add, so a user who sees characters in their input learns why
INVISIBLE_NOTE = "only whitespace, control, zero-width or byte-order-mark characters"


def lone_surrogate(text: str) -> int | None:
    """The position of the first lone surrogate (U+D800-U+DFFF) in `text`, or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def surrogate_note(text: str, at: int) -> str:
    """What is wrong with `text`, which holds a lone surrogate at `at`."""
    return (f"holds a lone surrogate ({text[at]!r} at character {at}: half of a UTF-16 pair, "
            "not a character, so it cannot be encoded): remove it, or decode the source "
            "properly (a JSON \\ud83c\\udf4e pair is one character)")


def check_text(text: object, where: str = "text", fix: str = "pass some text") -> str:
    """`text` if it is a string a reader can see; else TypeError (None, not a string) or
    ValueError (empty, whitespace or invisible only), naming `where` and the `fix`."""
    if text is None:
        raise TypeError(f"{where} is None; {fix}")
    if not isinstance(text, str):
        raise TypeError(f"{where} must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(f"{where} is empty or whitespace only; {fix}")
    if (at := lone_surrogate(text)) is not None:
        raise ValueError(f"{where} {surrogate_note(text, at)}")
    if not has_visible_text(text):
        raise ValueError(f"{where} is empty: it holds {INVISIBLE_NOTE}; {fix}")
    return text
