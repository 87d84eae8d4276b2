"""A PDF's sections: its outline (bookmarks) where it has one, each bookmark placed on its page
at the line that carries its title (else at the height its destination names, else the top of
its page); else the lines set in a heading's font, larger than the body text or bold at its
size, alone in their paragraph (bench/results/pdf_headings.md measures both against real PDFs'
own outlines). A page's text is cut where a section starts: no segment, so no chunk, crosses
one, and each carries its heading path ("3 Options > 3.2 Keys")."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .pdf_lines import PageText
from .records import Segment
from .sections import SectionPath, clean_heading

MAX_MARKS = 10_000  # outline entries read (an outline is untrusted input like the rest)
MAX_TITLE = 200  # characters of a bookmark's title kept
HEADING_RATIO = 1.15  # a heading's font is at least this much larger than the body's...
MAX_HEADING_CHARS = 100  # ... and its line no longer than this
MAX_LEVELS = 4  # heading sizes told apart; smaller ones share the last level
_WORDS = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Mark:
    """A bookmark: its depth (0 = top), title, 0-based page and the height it points at."""

    level: int
    title: str
    page: int
    top: float | None


@dataclass(frozen=True)
class Heading:
    """A section starting at character `offset` of its page's text."""

    offset: int
    level: int  # 1 = outermost
    title: str


def outline(doc, pages: int) -> list[Mark] | None:
    """The PDF's bookmarks that point into it, in outline order; None where it has none."""
    marks: list[Mark] = []
    try:
        for n, item in enumerate(doc.get_toc(max_depth=16)):
            if n >= MAX_MARKS:
                break
            dest = item.get_dest()
            page = dest.get_index() if dest is not None else None
            if page is None or not 0 <= page < pages:
                continue
            mode, view = dest.get_view()
            top = None
            if mode == 1 and len(view) >= 2:  # XYZ: left, top, zoom
                top = view[1]
            elif mode in (2, 6) and view:  # FitH, FitBH: top
                top = view[0]
            title = clean_heading((item.get_title() or "")[:MAX_TITLE])
            if title:
                marks.append(Mark(item.level, title, page, top))
    except Exception:  # a damaged outline is no outline: the headings are found by font
        return None
    return marks or None


def _norm(text: str) -> str:
    return "".join(_WORDS.findall(text.lower()))


def place_outline(marks: list[Mark], texts: list[PageText]) -> list[list[Heading]]:
    """Each page's headings from the outline: a bookmark starts at the first line (from the
    previous bookmark on its page on) whose text begins with its title, else at the first line
    at or below the height it points at, else at its page's top."""
    out: list[list[Heading]] = [[] for _ in texts]
    cursor = [0] * len(texts)  # index into starts: bookmarks of a page come in order
    for mark in marks:
        page = texts[mark.page]
        starts = page.starts
        want = _norm(mark.title)[:24]
        at = None
        for i in range(cursor[mark.page], len(starts)):
            line = _norm(starts[i][1].text)
            if want and (line.startswith(want) or (len(line) >= 4 and want.startswith(line))):
                at = i
                break
        if at is None and mark.top is not None:
            at = next((i for i in range(cursor[mark.page], len(starts))
                       if starts[i][1].y1 <= mark.top + 2), None)
        if at is not None:
            offset = starts[at][0]
        elif cursor[mark.page] < len(starts):
            offset = starts[cursor[mark.page]][0]
        else:  # past the page's last line, or a page read by OCR (no lines): its end, its top
            offset = len(page.text) if starts else 0
        if at is not None:
            cursor[mark.page] = at
        out[mark.page].append(Heading(offset, mark.level + 1, mark.title))
    return out


def body_size(texts: list[PageText]) -> float:
    """The font size most characters are set in (to half a point)."""
    sizes: Counter[float] = Counter()
    for page in texts:
        for _, ln in page.starts:
            if ln.size:
                sizes[round(ln.size * 2) / 2] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def paragraphs(page: PageText) -> list[list[tuple[int, object]]]:
    """The page's lines grouped into its paragraphs: (offset, line) each."""
    out: list[list] = []
    for offset, ln in page.starts:
        if not out or offset == 0 or page.text[offset - 1] == "\n":
            out.append([])
        out[-1].append((offset, ln))
    return out


def _heading_like(text: str) -> bool:
    return (len(text) <= MAX_HEADING_CHARS and any(c.isalpha() for c in text)
            and not text.rstrip().endswith((".", ",", ";", ":")))


def heading_lines(texts: list[PageText]) -> list[list[Heading]]:
    """Each page's headings found by font: paragraphs of one or two lines, all set larger than
    the body (HEADING_RATIO) or all bold at its size, short and not ending a sentence; levels
    by size, the bold body-size ones below them."""
    body = body_size(texts)
    if not body:
        return [[] for _ in texts]
    found: list[list[tuple[int, float, str]]] = [[] for _ in texts]  # (offset, size, title)
    for p, page in enumerate(texts):
        for para in paragraphs(page):
            sizes = {round(ln.size * 2) / 2 for _, ln in para}
            if len(para) > 2 or len(sizes) != 1:
                continue
            size = sizes.pop()
            big = size >= body * HEADING_RATIO
            bold = all(ln.bold for _, ln in para) and size >= body * 0.95
            title = " ".join(ln.text for _, ln in para)
            if (big or bold) and _heading_like(title):
                found[p].append((para[0][0], size if big else 0.0, title))
    sizes = sorted({s for page in found for _, s, _ in page if s}, reverse=True)
    level = {s: min(n, MAX_LEVELS - 1) + 1 for n, s in enumerate(sizes)}
    bold_level = min(len(sizes), MAX_LEVELS - 1) + 1
    return [[Heading(o, level.get(s, bold_level), clean_heading(t)) for o, s, t in page
             if clean_heading(t)] for page in found]


def section_segments(texts: list[PageText], headings: list[list[Heading]]) -> list[Segment]:
    """The pages cut where sections start, each piece with its page and heading path."""
    path = SectionPath()
    out: list[Segment] = []
    for n, (page, marks) in enumerate(zip(texts, headings, strict=True), start=1):
        at = 0
        for mark in sorted(marks, key=lambda m: m.offset):  # stable: outline order kept
            if mark.offset > at:
                out.append(Segment(page.text[at:mark.offset], n, path.text))
                at = mark.offset
            path.enter(mark.level, mark.title)
        out.append(Segment(page.text[at:], n, path.text))
    return out
