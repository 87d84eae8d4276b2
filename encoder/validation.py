"""Input checks shared by encoding and introspection: bad input fails loudly, naming its index."""

from __future__ import annotations

from collections.abc import Sequence


def check_texts(texts: str | Sequence[str]) -> list[str]:
    """Return `texts` as a list of non-empty strings, or raise naming the first bad item."""
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, Sequence):
        kind = type(texts).__name__
        raise TypeError(f"texts must be a string or a sequence of strings, got {kind}")
    out = list(texts)
    for i, text in enumerate(out):
        check_text(text, where=f"texts[{i}]")
    return out


def check_text(text: object, where: str = "text") -> str:
    if text is None:
        raise TypeError(f"{where} is None; pass a non-empty string")
    if not isinstance(text, str):
        raise TypeError(f"{where} must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(f"{where} is empty or whitespace only; pass some text")
    return text
