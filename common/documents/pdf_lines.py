"""From positioned text lines to a page's reading text, whatever library found the lines:
two-column pages read column by column, running headers and footers (lines repeated at the
same height on most pages) dropped, words broken by a line-end hyphen rejoined, lines joined
into paragraphs (CJK lines without a space between them)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

EDGE = 0.12  # top and bottom share of a page where running headers and footers live
COLUMN_MIN_LINES = 2  # lines each side of the middle before a page is read as two columns
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_BROKEN_WORD = re.compile(r"[^\W\d_]-$")  # "experi-" (a letter before the hyphen)


@dataclass(frozen=True)
class Line:
    """One line of text on a page, in PDF points (origin bottom left, y up)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)


def merge_runs(runs: Sequence[Line]) -> list[Line]:
    """Text runs on one baseline, close together, as one line (a run ends where the font or the
    spacing changes); runs a column gap apart stay apart."""
    out: list[Line] = []
    for run in sorted(runs, key=lambda r: (-round(r.y1), r.x0)):
        if out:
            last = out[-1]
            same_row = abs(last.y0 - run.y0) < 0.5 * min(last.height, run.height)
            if same_row and 0 <= run.x0 - last.x1 < 1.5 * last.height:
                gap = "" if not last.text or last.text.endswith(" ") or _cjk(last.text[-1]) \
                    else " "
                out[-1] = Line(last.x0, min(last.y0, run.y0), run.x1, max(last.y1, run.y1),
                               last.text + gap + run.text)
                continue
        out.append(run)
    return [Line(r.x0, r.y0, r.x1, r.y1, r.text.strip()) for r in out if r.text.strip()]


def reading_order(lines: Sequence[Line], width: float) -> list[Line]:
    """Top to bottom; where a page has two columns (enough lines wholly left and wholly right of
    its middle), each run of column lines is read left column first, then right, with lines
    across the middle (a title, a figure caption) keeping their place between runs."""
    rows = sorted(lines, key=lambda ln: (-ln.y1, ln.x0))
    middle = width / 2
    side = ["L" if ln.x1 <= middle + 2 else "R" if ln.x0 >= middle - 2 else "F" for ln in rows]
    if min(side.count("L"), side.count("R")) < COLUMN_MIN_LINES:
        return rows
    out: list[Line] = []
    left: list[Line] = []
    right: list[Line] = []
    for ln, s in zip(rows, side, strict=True):
        if s == "F":
            out += left + right + [ln]
            left, right = [], []
        else:
            (left if s == "L" else right).append(ln)
    return out + left + right


def _key(text: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("#", text)).strip().lower()


def running_lines(pages: Sequence[Sequence[Line]], height: float) -> set[str]:
    """Keys (digits as #, case and spacing ignored) of the lines at a page's top or bottom edge
    that repeat on more than half of the pages (and on at least two): running headers,
    footers, page numbers."""
    if len(pages) < 2:
        return set()
    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update({_key(ln.text) for ln in lines
                     if ln.y0 > height * (1 - EDGE) or ln.y1 < height * EDGE})
    return {k for k, n in seen.items() if n >= 2 and n > len(pages) / 2}


def _cjk(ch: str) -> bool:
    cp = ord(ch)
    return 0x2E80 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or 0xFF00 <= cp <= 0xFFEF \
        or cp >= 0x20000


def page_text(lines: Sequence[Line], drop: set[str] = frozenset(), height: float = 0.0) -> str:
    """The page's lines in order as paragraphs (a line pitch 1.6 times the page's usual one
    starts one; the top of the next column continues the text), running lines in `drop` left out,
    hyphenated line ends rejoined."""
    kept = [ln for ln in lines if not (height and _key(ln.text) in drop and (
        ln.y0 > height * (1 - EDGE) or ln.y1 < height * EDGE))]
    # baseline pitch: glyph boxes vary with the letters on a line, bottoms vary less than gaps
    pitches = sorted(a.y0 - b.y0 for a, b in zip(kept, kept[1:], strict=False) if a.y0 - b.y0 > 0)
    usual = pitches[len(pitches) // 2] if pitches else 0.0
    paragraphs: list[str] = []
    current = ""
    for i, ln in enumerate(kept):
        if i and current:
            pitch = kept[i - 1].y0 - ln.y0
            if pitch > 1.6 * usual:  # a blank line's width (up to a new column: the text goes on)
                paragraphs.append(current)
                current = ""
        current = _joined(current, ln.text)
    if current:
        paragraphs.append(current)
    return "\n".join(paragraphs)


def _joined(before: str, line: str) -> str:
    if not before:
        return line
    if _BROKEN_WORD.search(before) and line[:1].islower():
        return before[:-1] + line  # "experi-" + "ment"
    if _cjk(before[-1]) or _cjk(line[0]):
        return before + line
    return before + " " + line
