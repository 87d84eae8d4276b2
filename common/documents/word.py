"""Word files (.docx) by python-docx (bench/ingest_readers.py: docx2python read the same text
3.8 times faster; python-docx is kept for its style names, which give the headings directly):
headings (the Heading N and Title styles) become sections, each heading the first line of its
section; paragraphs, list items ("- item") and tables (one row a line, cells joined by " | ")
are read in document order. The title is the file's Title property, else its first heading.
A zip that is no Word document is a `ReadError`."""

from __future__ import annotations

import io
import re
import zipfile

from .records import Parsed, ReadError, Segment
from .sections import SectionPath, merged

FORMAT = "docx"
_HEADING = re.compile(r"^(?:heading (\d)|title)$", re.I)


def _level(style_name: str) -> int | None:
    found = _HEADING.match(style_name or "")
    if not found:
        return None
    return int(found.group(1)) if found.group(1) else 0  # Title sits above Heading 1


def _is_list(paragraph, name: str) -> bool:
    ppr = paragraph._p.pPr
    return name.lower().startswith("list") or (ppr is not None and ppr.numPr is not None)


def _table_text(table) -> str:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            if not cells or cells[-1] != text:  # a merged cell repeats in each column it spans
                cells.append(text)
        rows.append(" | ".join(cells))
    return "\n".join(r for r in rows if r.strip(" |"))


def read_docx(data: bytes) -> Parsed:
    import docx
    from docx.table import Table

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            if "word/document.xml" not in z.namelist():
                raise ReadError("a zip archive but no Word document (no word/document.xml): "
                                "is the extension right?")
    except zipfile.BadZipFile:
        raise ReadError("not a Word .docx file (not a zip archive); a .doc from old Word "
                        "needs saving as .docx") from None
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml errors...
        raise ReadError(f"damaged Word document ({type(exc).__name__}: {exc})") from None
    # style names by id, read once (python-docx's paragraph.style looks each one up anew, which
    # was most of the reading time in bench/ingest_readers.py)
    names = {s.style_id: s.name or "" for s in document.styles}
    segments: list[Segment] = []
    path = SectionPath()
    first_heading = ""
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            segments.append(Segment(_table_text(block), section=path.text))
            continue
        text = block.text.strip()
        name = names.get(block._p.style or "", "")
        level = _level(name)
        if level is not None and text:
            path.enter(level, text)
            first_heading = first_heading or text
        elif text and _is_list(block, name):
            text = "- " + text
        segments.append(Segment(text, section=path.text))
    title = (document.core_properties.title or "").strip() or first_heading
    return Parsed(FORMAT, merged(segments), title)
