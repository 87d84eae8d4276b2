"""`jsonl_objects`: the lines of a JSON-lines file as objects, each bad line as the reason it
is bad, so every reader (corpora, training pairs, BEIR files) can skip or refuse it by line."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def jsonl_objects(path: str | Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, object) for each non-blank line; (line number, reason) for a line that is
    not UTF-8, not JSON, or JSON but not an object."""
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            if n == 1:  # a byte-order mark, as Windows tools write one, is no part of the row
                raw = raw.removeprefix(codecs.BOM_UTF8)
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                yield n, f"not UTF-8 ({exc.reason} at byte {exc.start})"
                continue
            except json.JSONDecodeError as exc:
                yield n, f"malformed JSON ({exc.msg} at column {exc.colno})"
                continue
            yield n, row if isinstance(row, dict) else \
                f"not a JSON object (a {type(row).__name__})"
