"""Plain text (.txt), and the byte checks every text format shares: UTF-8, or UTF-16 / UTF-32
(by their byte-order mark, or UTF-16 without one, told by its zero bytes: Windows' "Unicode"
text); anything else with NUL bytes is binary, and text that is not UTF-8 is a `ReadError`
saying how to save it."""

from __future__ import annotations

import codecs

from .records import Parsed, ReadError, Segment

FORMAT = "text"
SNIFF = 8192  # bytes looked at for NULs
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),  # before UTF-16's
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))


def unicode_charset(data: bytes) -> tuple[str, str | None] | None:
    """(codec, note) for text in a Unicode encoding other than plain UTF-8: a byte-order mark
    names it; UTF-16 without one shows as a zero byte beside every ASCII character. None
    otherwise."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, None
    head = data[:SNIFF - SNIFF % 2]
    if len(head) >= 4 and b"\x00" in head:
        even, odd = head[0::2], head[1::2]
        for zeros, name in ((odd, "utf-16-le"), (even, "utf-16-be")):
            other = even if zeros is odd else odd
            if zeros.count(0) >= 0.9 * len(zeros) and other.count(0) <= 0.1 * len(other):
                return name, (f"read as {name.upper()}: it has no byte-order mark (its zero "
                              "bytes say so)")
    return None


def decoded(data: bytes) -> tuple[str, tuple[str, ...]]:
    """(`data` as text without a byte-order mark, notes on how it was read)."""
    unicode = unicode_charset(data)
    if unicode is not None:
        name, note = unicode
        try:
            return data.decode(name).lstrip("\ufeff"), (note,) if note else ()
        except UnicodeDecodeError as exc:
            raise ReadError(f"not valid {name.upper()} ({exc.reason} at byte {exc.start}); "
                            "save it as UTF-8") from None
    if b"\x00" in data[:SNIFF]:
        raise ReadError("binary data, not text (NUL bytes): is the extension right?")
    try:
        return data.decode("utf-8"), ()
    except UnicodeDecodeError as exc:
        raise ReadError(f"not UTF-8 ({exc.reason} at byte {exc.start}); save it as UTF-8") \
            from None


def read_text(data: bytes) -> Parsed:
    text, notes = decoded(data)
    return Parsed(FORMAT, [Segment(text)], notes=notes)
