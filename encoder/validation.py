"""Input checks shared by encoding and introspection: bad input fails loudly, naming its index."""

from __future__ import annotations

from collections.abc import Sequence

from common.text import INVISIBLE_NOTE, has_visible_text


def check_texts(texts: str | Sequence[str], *, what: str = "texts",
                one_allowed: bool = True) -> list[str]:
    """Return `texts` as a list of non-empty strings, or raise naming the first bad item. A lone
    string is one text where `one_allowed`, else an error (not a list of its characters)."""
    if isinstance(texts, str):
        if not one_allowed:
            raise TypeError(f"{what} must be a list of strings, not one string: use [{texts!r}]")
        texts = [texts]
    if isinstance(texts, (bytes, bytearray)) or not isinstance(texts, Sequence):
        kind = type(texts).__name__
        raise TypeError(f"{what} must be a string or a sequence of strings, got {kind}")
    out = list(texts)
    for i, text in enumerate(out):
        check_text(text, where=f"{what}[{i}]")
    return out


def check_text(text: object, where: str = "text") -> str:
    if text is None:
        raise TypeError(f"{where} is None; pass a non-empty string")
    if not isinstance(text, str):
        raise TypeError(f"{where} must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(f"{where} is empty or whitespace only; pass some text")
    if not has_visible_text(text):
        raise ValueError(f"{where} is empty: it holds {INVISIBLE_NOTE}; pass some text")
    return text
