"""Input checks shared by encoding and introspection: bad input fails loudly, naming its index."""

from __future__ import annotations

from collections.abc import Sequence

from common.text import check_text


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


__all__ = ["check_text", "check_texts"]
