"""PowerPoint (.pptx) by python-pptx (bench/results/ingest_formats.md: against reading the
slides' XML directly, the same text, and it knows the slide order, placeholders and notes): one
slide a page, its title the section (the deck's sections cite "deck.pptx, p. 3, § Results"),
its text frames and tables in reading order (top to bottom, then left to right; a bullet
below the first level as "- point"), then its speaker notes ("Notes: ..."). The title is the
deck's Title property, else its first slide's title."""

from __future__ import annotations

import io

from .records import Parsed, ReadError, Segment
from .sections import clean_heading
from .zipped import check_zip

FORMAT = "pptx"
MAX_SLIDES = 5_000


def _shapes(shapes):
    """Every shape, group shapes opened, in reading order (top, then left)."""
    out = []
    for shape in shapes:
        if shape.shape_type == 6:  # MSO_SHAPE_TYPE.GROUP
            out.extend(_shapes(shape.shapes))
        else:
            out.append(shape)
    return sorted(out, key=lambda s: (s.top or 0, s.left or 0))


def _shape_text(shape) -> str:
    if getattr(shape, "has_table", False) and shape.has_table:
        rows = [" | ".join(" ".join(c.text.split()) for c in row.cells)
                for row in shape.table.rows]
        return "\n".join(r for r in rows if r.strip(" |"))
    if not getattr(shape, "has_text_frame", False) or not shape.has_text_frame:
        return ""
    lines = []
    for para in shape.text_frame.paragraphs:
        text = " ".join("".join(run.text for run in para.runs).split())
        if text:
            lines.append(("- " if para.level > 0 else "") + text)
    return "\n".join(lines)


def read_pptx(data: bytes) -> Parsed:
    from pptx import Presentation

    check_zip(data, "ppt/presentation.xml", "PowerPoint .pptx file",
              "; a .ppt from old PowerPoint needs saving as .pptx")
    try:
        deck = Presentation(io.BytesIO(data))
    except Exception as exc:  # python-pptx raises KeyError, ValueError, lxml errors...
        raise ReadError(f"damaged PowerPoint file ({type(exc).__name__}: {exc})") from None
    segments, first_title = [], ""
    for n, slide in enumerate(deck.slides, start=1):
        if n > MAX_SLIDES:
            break
        title_shape = slide.shapes.title
        title = clean_heading(title_shape.text) if title_shape is not None else ""
        first_title = first_title or title
        parts = [title] if title else []
        for shape in _shapes(slide.shapes):
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            text = _shape_text(shape)
            if text:
                parts.append(text)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            notes_text = " ".join((notes.text if notes is not None else "").split())
            if notes_text:
                parts.append(f"Notes: {notes_text}")
        segments.append(Segment("\n".join(parts), page=n, section=title))
    deck_title = (deck.core_properties.title or "").strip() or first_title
    return Parsed(FORMAT, segments, deck_title, {"pages": len(segments)})
