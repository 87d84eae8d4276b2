"""The names indexes are served by: one folder or pointer under the index root, named in
letters and digits of the common scripts (Latin, Greek, Cyrillic, Hebrew, Arabic, Devanagari,
Thai, Chinese, Japanese kana, Korean), spaces, '.', '_' and '-'; a letter or digit first, no
space last, no '..', at most 128 characters. `新闻` and `my index` are served (a client sends
them percent-encoded: `/v1/indexes/my%20index/search`). The rule is one pattern, written with
code point ranges so that Python and the OpenAPI schema's JSON Schema (ECMA) read it alike."""

from __future__ import annotations

import re

MAX_NAME = 128
_LETTER = ("A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0370-\u03ff\u0400-\u04ff"
           "\u05d0-\u05ea\u0620-\u064a\u0660-\u0669\u0900-\u097f\u0e00-\u0e7f"
           "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3")
_ESCAPED = "".join(c if c.isascii() else f"\\u{ord(c):04x}" for c in _LETTER)
# the pattern as the schema writes it (escapes: ASCII-only text, which both regex dialects read)
INDEX_NAME = (rf"^(?!.*\.\.)[{_ESCAPED}](?:[{_ESCAPED} ._-]{{0,{MAX_NAME - 2}}}"
              rf"[{_ESCAPED}._-])?$")
_NAME = re.compile(INDEX_NAME)
RULE = ("an index name is letters or digits (Latin, Greek, Cyrillic, Hebrew, Arabic, "
        "Devanagari, Thai, Chinese, Japanese or Korean), spaces, '.', '_' and '-', starting "
        f"with a letter or digit, not ending in a space, no '..', at most {MAX_NAME} characters")


def servable(name: object) -> bool:
    """Whether `name` is one the service serves an index by."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None
