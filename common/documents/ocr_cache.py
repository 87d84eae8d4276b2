"""The OCR of a file's pages kept by the file's sha256 (`$BERTSCOPE_HOME/ocr/SHA256.json`): its
words' boxes, so that highlighting a chunk on an OCR'd page draws the boxes of the words it was
read from without reading the page again. A file absent from the cache (another machine, a
cleared cache) is read again by OCR when it is highlighted; a damaged entry is ignored."""

from __future__ import annotations

import json
import re

from ..atomic import write_json_atomic
from .ocr import OcrPage, OcrWord, cache_folder

_SHA256 = re.compile(r"[0-9a-f]{64}")
MAX_ENTRY_BYTES = 64 * 2**20  # a cache file larger than this is not read


def keep_ocr(sha256: str, pages: dict[int, OcrPage]) -> None:
    """Keep the OCR'd `pages` ({1-based page: OcrPage}) of the file with this `sha256`."""
    if not _SHA256.fullmatch(sha256):
        return
    try:
        write_json_atomic(cache_folder() / f"{sha256}.json",
                          {str(n): p.to_json() for n, p in pages.items()})
    except OSError:  # a cache: highlighting reads the page again without it
        pass


def kept_ocr(sha256: str, page: int) -> OcrPage | None:
    """The kept OCR of `page` of the file with this `sha256`, or None."""
    if not _SHA256.fullmatch(sha256 or ""):
        return None
    path = cache_folder() / f"{sha256}.json"
    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        entry = json.loads(path.read_text(encoding="utf-8")).get(str(page))
        if entry is None:
            return None
        text = entry["text"]
        words = [OcrWord(text[s:e], int(s), int(e), (int(a), int(b), int(c), int(d)), 0.0)
                 for s, e, a, b, c, d in entry["words"]]
        return OcrPage(text, words, float(entry["confidence"]),
                       (int(entry["size"][0]), int(entry["size"][1])))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
