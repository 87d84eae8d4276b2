"""Character error rate of OCR text against the truth: edits / characters of the truth, the
edits counted on difflib's alignment of the two (each replaced, deleted or inserted run counts
its longer side: an upper bound of the Levenshtein distance, equal to it where the differences
are few and apart, as in OCR of clean pages). Whitespace is left out of both (a line break
against a space is no error a reader sees); Chinese text has none to lose."""

from __future__ import annotations

import difflib


def cer(truth: str, got: str) -> float:
    a, b = "".join(truth.split()), "".join(got.split())
    if not a:
        return 0.0 if not b else 1.0
    edits = sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in
                difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
                if op != "equal")
    return edits / len(a)
