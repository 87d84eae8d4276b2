"""A document's layout: its segments joined into one text, and where each segment lies in it,
kept in the document's metadata under `LAYOUT_KEY` so that every store and `rebuild` keep it
with the document. From it: the spans no chunk may cross (`segment_spans`) and a chunk's place,
`{"page": 2, "section": "Methods > Sample size"}` (`place_at`), merged into a hit's metadata by
`chunk_metadata` — the one function both stores call.

    metadata["_layout"] = {"spans": [[start, end, page or None, section no or None], ...],
                           "sections": ["Annual report 2023", "Annual report 2023 > Methods"],
                           "ocr": {"3": 91.5}, "drop": ["page # of ##"]}

`ocr` (a page read by OCR: its mean word confidence, given to its chunks as `ocr_confidence`)
and `drop` (a PDF's running lines, which highlighting a page leaves out as reading did) are
there only where the reader gave them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .records import Segment

LAYOUT_KEY = "_layout"
SEPARATOR = "\n\n"  # between segments: a paragraph break, never part of a chunk's span


def join_segments(segments: Sequence[Segment]) -> tuple[str, dict[str, Any]]:
    """(the document's text, its layout) from `segments`; empty ones are dropped."""
    parts: list[str] = []
    spans: list[list] = []
    sections: list[str] = []
    number: dict[str, int] = {}
    at = 0
    for seg in segments:
        text = seg.text.strip()
        if not text:
            continue
        if parts:
            at += len(SEPARATOR)
        section = None
        if seg.section:
            section = number.setdefault(seg.section, len(sections))
            if section == len(sections):
                sections.append(seg.section)
        spans.append([at, at + len(text), seg.page, section])
        parts.append(text)
        at += len(text)
    return SEPARATOR.join(parts), {"spans": spans, "sections": sections}


def _layout(metadata: dict[str, Any] | None) -> dict | None:
    """The layout, or None where there is none or it is not one `join_segments` makes (an
    index written before reserved names were refused may hold a forged one: every hit on it
    must still be served, without a page or section)."""
    layout = (metadata or {}).get(LAYOUT_KEY)
    if not isinstance(layout, dict):
        return None
    spans, sections = layout.get("spans"), layout.get("sections", [])
    if not isinstance(spans, list) or not isinstance(sections, list) \
            or not all(isinstance(s, str) for s in sections):
        return None
    ocr = layout.get("ocr", {})
    if not isinstance(ocr, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in ocr.values()):
        return None
    return layout if all(_span(s, len(sections)) for s in spans) else None


def _span(span: Any, sections: int) -> bool:
    """Whether `span` is [start, end, page or None, section number or None]."""
    if not isinstance(span, (list, tuple)) or len(span) != 4:
        return False
    start, end, page, section = span
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end))
    return ints and 0 <= start <= end and (page is None or _whole(page)) and (
        section is None or (_whole(section) and section < sections))


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def layout_of(metadata: dict[str, Any] | None) -> dict | None:
    """The document's layout, checked (None: none, or not one `join_segments` makes)."""
    return _layout(metadata)


def segment_spans(metadata: dict[str, Any] | None) -> list[tuple[int, int]] | None:
    """The (start, end) character spans of a document's segments; None for a document without
    a layout (a corpus row: one span, the whole text)."""
    layout = _layout(metadata)
    if layout is None:
        return None
    return [(int(s[0]), int(s[1])) for s in layout["spans"]]


def place_at(metadata: dict[str, Any] | None, offset: int) -> dict[str, Any]:
    """{"page": n} and/or {"section": "A > B"} of the segment holding character `offset`
    ({} for a document without a layout, or an offset between segments)."""
    layout = _layout(metadata)
    if layout is None:
        return {}
    for start, end, page, section in layout["spans"]:
        if start <= offset < end:
            out: dict[str, Any] = {}
            if page is not None:
                out["page"] = page
            if section is not None:
                out["section"] = layout["sections"][section]
            confidence = layout.get("ocr", {}).get(str(page)) if page is not None else None
            if confidence is not None:
                out["ocr_confidence"] = float(confidence)
            return out
    return {}


def chunk_metadata(metadata: dict[str, Any] | None, start: int) -> dict[str, Any]:
    """A chunk's metadata: its document's, without the layout, with the chunk's page and
    section (the chunk starting at character `start`). A document without a layout: its
    metadata as it is."""
    metadata = metadata or {}
    if LAYOUT_KEY not in metadata:
        return dict(metadata)
    out = {k: v for k, v in metadata.items() if k != LAYOUT_KEY}
    out.update(place_at(metadata, start))
    return out


def citation(metadata: dict[str, Any] | None, fallback: str = "") -> str:
    """How a reader finds a chunk: "reports/annual-2023.pdf, p. 2" or "notes/a.md, § Setup >
    Linux"; `fallback` (a title, an id) where the metadata names no source."""
    metadata = metadata or {}
    parts = [str(metadata.get("source") or fallback)]
    if metadata.get("page") is not None:
        parts.append(f"p. {metadata['page']}")
    if metadata.get("section"):
        parts.append(f"§ {metadata['section']}")
    return ", ".join(p for p in parts if p)


def page_starts(metadata: dict[str, Any] | None) -> list[tuple[int, int]]:
    """(offset, page) where each page after the first begins in the document's text: where
    an excerpt crossing it marks the page's end."""
    layout = _layout(metadata)
    if layout is None:
        return []
    out, last = [], None
    for start, _, page, _ in layout["spans"]:
        if page is not None and last is not None and page != last:
            out.append((start, page))
        last = page if page is not None else last
    return out


def section_span(metadata: dict[str, Any] | None, offset: int) -> tuple[int, int, str] | None:
    """(start, end, heading path) of the whole section holding character `offset` (its
    segments side by side), or None where the document has no sections there."""
    layout = _layout(metadata)
    if layout is None:
        return None
    spans = layout["spans"]
    at = next((i for i, (s, e, _, _) in enumerate(spans) if s <= offset < e), None)
    if at is None or spans[at][3] is None:
        return None
    number = spans[at][3]
    first = last = at
    while first > 0 and spans[first - 1][3] == number:
        first -= 1
    while last + 1 < len(spans) and spans[last + 1][3] == number:
        last += 1
    return spans[first][0], spans[last][1], layout["sections"][number]
