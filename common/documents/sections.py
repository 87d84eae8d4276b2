"""`SectionPath`: the path of headings above a point of a document, as one string
("Annual report 2023 > Methods > Sample size"), kept as headings of each level arrive;
`merged`, consecutive segments of one section as one; `clean_heading`, a heading without the
permalink anchors pages put after it ("Options¶", "Setup #", "Keys 🔗"); and
`without_empty_tail`, a document without the headings it ends on with nothing under them (an
orphan "Footnotes" whose notes the reader left out)."""

from __future__ import annotations

import re

from .records import Segment

JOIN = " > "
# permalink marks after a heading: Sphinx's ¶, a "#" or "§" link, a link emoji
_ANCHOR = re.compile(r"(?:\s*[¶\U0001F517\u2693]|\s+[#§])+\s*$")  # "C#" keeps its "#"
ANCHORS = "¶🔗\u2693"  # marks no heading or text keeps wherever they stand alone


def clean_heading(text: str) -> str:
    """`text` on one line, without the anchor marks after it."""
    return _ANCHOR.sub("", " ".join(text.split())).strip()


def without_anchors(text: str) -> str:
    """A block's text without anchor marks standing alone as words ("Caption text ¶")."""
    if not any(a in text for a in ANCHORS):
        return text
    return re.sub(rf"[ \t]*(?<!\S)[{ANCHORS}](?!\S)", "", text)


class SectionPath:
    def __init__(self) -> None:
        self._open: list[tuple[int, str]] = []  # (level, heading), outermost first

    def enter(self, level: int, heading: str) -> None:
        """A heading of `level` (1 = outermost) closes every open one of that level or deeper."""
        heading = clean_heading(heading)
        while self._open and self._open[-1][0] >= level:
            self._open.pop()
        if heading:
            self._open.append((level, heading))

    @property
    def text(self) -> str:
        return JOIN.join(h for _, h in self._open)


def merged(segments: list[Segment]) -> list[Segment]:
    """Consecutive segments of one page and section as one (a heading and the text under
    it), empty ones dropped."""
    out: list[Segment] = []
    for seg in segments:
        text = seg.text.strip()
        if not text:
            continue
        if out and out[-1].section == seg.section and out[-1].page == seg.page:
            out[-1] = Segment(out[-1].text + "\n" + text, seg.page, seg.section)
        else:
            out.append(Segment(text, seg.page, seg.section))
    return out


RUBRICS = {"footnotes", "notes", "references", "see also", "bibliography", "citations"}


def without_empty_tail(segments: list[Segment]) -> list[Segment]:
    """`segments` (merged) without the last ones that hold only their own heading, and without
    a rubric ("Footnotes": Sphinx writes it as a paragraph) ending the last one with nothing
    under it (its notes are what the reader left out)."""
    out = list(segments)
    while len(out) > 1 and out[-1].section and out[-1].text.strip() == \
            out[-1].section.rsplit(JOIN, 1)[-1]:
        out.pop()
    while out:
        head, _, last = out[-1].text.rstrip().rpartition("\n")
        if not head.strip() or clean_heading(last).lower() not in RUBRICS:
            break
        out[-1] = Segment(head, out[-1].page, out[-1].section)
    return out
