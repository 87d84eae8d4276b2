"""What a file that should be UTF-8 text really is when it is not: compressed, an archive, UTF-16
or UTF-32 (told by the byte-order mark Windows writes), or text in an 8-bit encoding (Latin-1,
Windows-1252). Each is one phrase naming the cause and the fix, for every reader of text files
(recipes, training data), instead of a UnicodeDecodeError or a parser's guess."""

from __future__ import annotations

import codecs
from pathlib import Path

SAVE = "save it as UTF-8"
MAGIC = (  # longest first: a UTF-32 mark starts with the UTF-16 one
    (codecs.BOM_UTF32_LE, f"UTF-32 text (it starts with the byte-order mark FF FE 00 00): {SAVE}"),
    (codecs.BOM_UTF32_BE, f"UTF-32 text (it starts with the byte-order mark 00 00 FE FF): {SAVE}"),
    (codecs.BOM_UTF16_LE, f"UTF-16 text (it starts with the byte-order mark FF FE, as Windows "
                          f"tools write it): {SAVE}"),
    (codecs.BOM_UTF16_BE, f"UTF-16 text (it starts with the byte-order mark FE FF): {SAVE}"),
    (b"\x1f\x8b", "gzip-compressed: decompress it first (gunzip FILE.gz)"),
    (b"PK\x03\x04", "a zip archive: extract the file from it first"),
    (b"BZh", "bzip2-compressed: decompress it first (bunzip2)"),
    (b"\xfd7zXZ\x00", "xz-compressed: decompress it first (unxz)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed: decompress it first (unzstd)"),
)
CHUNK = 1 << 20


def binary_kind(head: bytes) -> str | None:
    """What a file starting with `head` (its first bytes) is, when it is no UTF-8 text."""
    return next((what for magic, what in MAGIC if head.startswith(magic)), None)


def not_utf8(path: str | Path, *, scan: bool = True) -> str | None:
    """Why the file at `path` is not UTF-8 text ("is gzip-compressed: ..."), or None. `scan`:
    decode the whole file (read a megabyte at a time), else look at its first bytes only."""
    with open(path, "rb") as fh:
        head = fh.read(8)
        if (kind := binary_kind(head)) is not None:
            return f"is {kind}"
        if not scan:
            return None
        fh.seek(0)
        decoder = codecs.getincrementaldecoder("utf-8")()
        line, done = 1, 0
        while chunk := fh.read(CHUNK):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                at = max(exc.start, 0)
                return _eight_bit(chunk[at] if at < len(chunk) else 0,
                                  line + chunk.count(b"\n", 0, at), done + at)
            line += chunk.count(b"\n")
            done += len(chunk)
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return _eight_bit(0, line, done)
    return None


def _eight_bit(byte: int, line: int, offset: int) -> str:
    return (f"is not UTF-8 (byte 0x{byte:02x} on line {line}, offset {offset:,}: Latin-1 or "
            f"Windows-1252 text?): {SAVE}")
