"""Plain text (.txt), and the byte checks every text format shares: a binary file named as
text (NUL bytes) and text that is not UTF-8 are `ReadError`s."""

from __future__ import annotations

from .records import Parsed, ReadError, Segment

FORMAT = "text"
SNIFF = 8192  # bytes looked at for NULs


def decoded(data: bytes) -> str:
    """`data` as UTF-8 text, without a byte-order mark."""
    if b"\x00" in data[:SNIFF]:
        raise ReadError("binary data, not text (NUL bytes): is the extension right?")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReadError(f"not UTF-8 ({exc.reason} at byte {exc.start}); save it as UTF-8") \
            from None


def read_text(data: bytes) -> Parsed:
    return Parsed(FORMAT, [Segment(decoded(data))])
