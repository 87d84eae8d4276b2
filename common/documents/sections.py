"""`SectionPath`: the path of headings above a point of a document, as one string
("Annual report 2023 > Methods > Sample size"), kept as headings of each level arrive; and
`merged`, consecutive segments of one section as one."""

from __future__ import annotations

from .records import Segment

JOIN = " > "


class SectionPath:
    def __init__(self) -> None:
        self._open: list[tuple[int, str]] = []  # (level, heading), outermost first

    def enter(self, level: int, heading: str) -> None:
        """A heading of `level` (1 = outermost) closes every open one of that level or deeper."""
        heading = " ".join(heading.split())
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
