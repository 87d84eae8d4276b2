"""From positioned text lines to a page's reading text, whatever library found the lines:
two-column pages read column by column, running headers and footers (lines repeated at the
same height on most pages) dropped, margin notes taken out of the sentences they sit beside
(each its own line after its paragraph; dropped when repeated on other pages), words broken by
a line-end hyphen rejoined, lines joined into paragraphs (CJK lines without a space between
them). `page_map` keeps, beside the text, where each character came from (a line's `chars`:
its characters' indexes in the PDF's text page) and where each line starts: what highlighting a
chunk on its page and splitting a page at its section headings need."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

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
    chars: tuple[int, ...] = ()  # each character's index in the page's text page (-1: none)
    size: float = 0.0  # the font size of the line (0: not known)
    bold: bool = False

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)


def merge_runs(runs: Sequence[Line]) -> list[Line]:
    """Text runs on one row (their middles within half a line of each other: glyph boxes vary
    with the letters), close together, as one line; runs a column gap apart stay apart."""
    rows: list[tuple[float, float, list[Line]]] = []  # (middle, height, runs)
    for run in sorted(runs, key=lambda r: -(r.y0 + r.y1) / 2):
        middle = (run.y0 + run.y1) / 2
        if rows and abs(rows[-1][0] - middle) < 0.5 * min(rows[-1][1], run.height):
            rows[-1][2].append(run)
        else:
            rows.append((middle, run.height, [run]))
    out: list[Line] = []
    for _, _, row in rows:
        row.sort(key=lambda r: r.x0)
        line = row[0]
        for run in row[1:]:
            if -0.5 * line.height <= run.x0 - line.x1 < 1.5 * line.height:
                gap = "" if not line.text or line.text.endswith(" ") or _cjk(line.text[-1]) \
                    else " "
                line = Line(line.x0, min(line.y0, run.y0), max(line.x1, run.x1),
                            max(line.y1, run.y1), line.text + gap + run.text)
            else:
                out.append(line)
                line = run
        out.append(line)
    return [Line(r.x0, r.y0, r.x1, r.y1, r.text.strip()) for r in out if r.text.strip()]


def reading_order(lines: Sequence[Line], width: float) -> list[Line]:
    """Top to bottom; where a page has two columns (enough lines starting right of its middle,
    and enough ending before where the leftmost of those starts), each run of column lines is
    read left column first, then right, with lines across both (a title, a caption) keeping
    their place between runs. A left line may run into the gutter, not into the right column."""
    rows = sorted(lines, key=lambda ln: (-ln.y1, ln.x0))
    right = [ln for ln in rows if ln.x0 >= width / 2 - 2]
    if len(right) < COLUMN_MIN_LINES:
        return rows
    split = min(ln.x0 for ln in right)
    side = ["R" if ln.x0 >= split - 1 else "L" if ln.x1 <= split - 1 else "F" for ln in rows]
    if side.count("L") < COLUMN_MIN_LINES:
        return rows
    out: list[Line] = []
    left: list[Line] = []
    righ: list[Line] = []
    for ln, s in zip(rows, side, strict=True):
        if s == "F":
            out += left + righ + [ln]
            left, righ = [], []
        else:
            (left if s == "L" else righ).append(ln)
    return out + left + righ


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


def is_cjk(ch: str) -> bool:
    """Whether `ch` is a CJK character (or full-width form): written without spaces."""
    return _cjk(ch)


def _cjk(ch: str) -> bool:
    cp = ord(ch)
    return 0x2E80 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or 0xFF00 <= cp <= 0xFFEF \
        or cp >= 0x20000


MARGIN_NOTE_WIDTH = 0.3  # a margin note is at most this share of the page wide


def margin_notes(lines: Sequence[Line], width: float) -> tuple[list[Line], list[Line]]:
    """(body lines, margin notes): a note is a narrow line wholly left or right of the text
    block (the left edge most lines start at, the right edge most end at), beside body lines."""
    if len(lines) < 4 or not width:
        return list(lines), []
    lefts = sorted(round(ln.x0) for ln in lines)
    rights = sorted(round(ln.x1) for ln in lines)
    left, right = lefts[len(lefts) // 5], rights[len(rights) * 4 // 5]  # most lines in between
    body, notes = [], []
    for ln in lines:
        narrow = ln.x1 - ln.x0 < MARGIN_NOTE_WIDTH * width
        if narrow and (ln.x1 < left - 4 or ln.x0 > right + 4):
            notes.append(ln)
        else:
            body.append(ln)
    if len(body) < 2 * len(notes):  # no text block to be beside: a table, a title page
        return list(lines), []
    return body, notes


def note_key(text: str) -> str:
    """A margin note's key: its words, digits and all ("Note 1" and "Note 2" differ)."""
    return "note: " + " ".join(text.split()).lower()


def repeated_notes(notes: Sequence[Sequence[Line]]) -> set[str]:
    """Keys of margin notes on more than one page (a repeated marker, not a note)."""
    seen: Counter[str] = Counter()
    for page in notes:
        seen.update({note_key(ln.text) for ln in page})
    return {k for k, n in seen.items() if n >= 2}


@dataclass
class PageText:
    """A page's text, `ids[i]` where `text[i]` came from (the line's `chars`; -1 for a space or
    newline put between lines, or where lines carry no `chars`), and `starts`: (offset, line)
    of each line kept, in reading order."""

    text: str = ""
    ids: list[int] = field(default_factory=list)
    starts: list[tuple[int, Line]] = field(default_factory=list)

    def add(self, piece: str, ids: Sequence[int] | None = None) -> None:
        self.text += piece
        self.ids.extend(ids if ids is not None else [-1] * len(piece))

    def drop_last(self) -> None:
        self.text = self.text[:-1]
        self.ids.pop()


def _on_edge(ln: Line, height: float) -> bool:
    return ln.y0 > height * (1 - EDGE) or ln.y1 < height * EDGE


def page_map(lines: Sequence[Line], drop: set[str] = frozenset(), height: float = 0.0,
             notes: Sequence[Line] = ()) -> PageText:
    """The page's lines in order as paragraphs (a line pitch 1.6 times the page's usual one
    starts one; the top of the next column continues the text), running lines in `drop` left
    out, hyphenated line ends rejoined; each margin note of `notes` (not in `drop`) its own
    line after the paragraph beside which it stands."""
    kept = [ln for ln in lines if not (height and _key(ln.text) in drop and _on_edge(ln, height))]
    waiting = sorted((n for n in notes if note_key(n.text) not in drop), key=lambda n: -n.y1)
    # baseline pitch: glyph boxes vary with the letters on a line, bottoms vary less than gaps
    pitches = sorted(a.y0 - b.y0 for a, b in zip(kept, kept[1:], strict=False) if a.y0 - b.y0 > 0)
    usual = pitches[len(pitches) // 2] if pitches else 0.0
    out = PageText()
    in_paragraph = False

    def notes_above(y: float) -> None:
        """The notes whose top is above `y`, each on its own line."""
        while waiting and waiting[0].y1 > y + 1:
            note = waiting.pop(0)
            if out.text:
                out.add("\n")
            out.starts.append((len(out.text), note))
            out.add(note.text, _ids(note))

    for i, ln in enumerate(kept):
        if i and in_paragraph and kept[i - 1].y0 - ln.y0 > 1.6 * usual:
            in_paragraph = False  # a blank line's width (up to a new column: the text goes on)
            notes_above(ln.y1)
        if not in_paragraph:
            if out.text:
                out.add("\n")
            out.starts.append((len(out.text), ln))
            out.add(ln.text, _ids(ln))
            in_paragraph = True
            continue
        if _BROKEN_WORD.search(out.text) and ln.text[:1].islower():
            out.drop_last()  # "experi-" + "ment"
        elif not (_cjk(out.text[-1]) or _cjk(ln.text[0])):
            out.add(" ")
        out.starts.append((len(out.text), ln))
        out.add(ln.text, _ids(ln))
    notes_above(float("-inf"))
    return out


def _ids(ln: Line) -> list[int]:
    return list(ln.chars) if len(ln.chars) == len(ln.text) else [-1] * len(ln.text)


def page_text(lines: Sequence[Line], drop: set[str] = frozenset(), height: float = 0.0,
              notes: Sequence[Line] = ()) -> str:
    """`page_map`'s text alone."""
    return page_map(lines, drop, height, notes).text
