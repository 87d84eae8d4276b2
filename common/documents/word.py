"""Word files (.docx): python-docx opens the file (its style names give the headings directly,
and its core properties the title); the body's XML is then walked here, in document order, so
that nothing python-docx's paragraph and table API skips is dropped: text inside content
controls (`w:sdt`), tracked insertions (`w:ins`: the current text; tracked deletions and the old
place of a move are left out), nested tables, and text boxes (`w:txbxContent`, each read once
though Word stores a drawing and a VML copy). Headings (the Heading N and Title styles) become
sections, each heading the first line of its section; list items read "- item"; a table is one
row a line, cells joined by " | " (a nested table inside its cell, its rows joined by " / ").
The title is the file's Title property, else its first heading. What the walk cannot read
(embedded objects, charts) is named in a note. A zip that is no Word document is a
`ReadError`."""

from __future__ import annotations

import io
import re
import zipfile

from .records import Parsed, ReadError, Segment
from .sections import SectionPath, clean_heading, merged, without_empty_tail

FORMAT = "docx"
_HEADING = re.compile(r"^(?:heading (\d)|title)$", re.I)
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_WRAPPERS = {W + "sdt", W + "sdtContent", W + "customXml", W + "ins", W + "smartTag",
             W + "hyperlink", W + "fldSimple", W + "dir", W + "bdo"}  # read through
_LEFT_OUT = {W + "del", W + "moveFrom", W + "sdtPr", W + "sdtEndPr", W + "pPr", W + "rPr",
             W + "delText", W + "instrText", MC + "Fallback"}  # never the current text
_OBJECTS = (W + "object", "{http://schemas.openxmlformats.org/drawingml/2006/chart}chart")


def _level(style_name: str) -> int | None:
    found = _HEADING.match(style_name or "")
    if not found:
        return None
    return int(found.group(1)) if found.group(1) else 0  # Title sits above Heading 1


def _children(element):
    """The children of `element` in order, content controls, insertions and the like opened
    (their content stands where they are), deleted or superseded content left out."""
    for child in element:
        if child.tag in _LEFT_OUT:
            continue
        if child.tag in _WRAPPERS:
            yield from _children(child)
        else:
            yield child


def _runs_text(element, boxes: list) -> str:
    """The text of a paragraph (or a run): `w:t`, tabs and breaks, in order; a text box met on
    the way goes to `boxes` (read as paragraphs of its own), not into this text."""
    out = []
    for child in _children(element):
        tag = child.tag
        if tag == W + "t":
            out.append(child.text or "")
        elif tag in (W + "tab", W + "ptab"):
            out.append("\t")
        elif tag in (W + "br", W + "cr"):
            out.append("\n")
        elif tag == W + "noBreakHyphen":
            out.append("-")
        elif tag == W + "txbxContent":
            boxes.append(child)
        elif len(child):
            out.append(_runs_text(child, boxes))
    return "".join(out)


class _Walk:
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names  # style id -> style name
        self.segments: list[Segment] = []
        self.path = SectionPath()
        self.first_heading = ""
        self.objects = 0

    def blocks(self, parent) -> None:
        for child in _children(parent):
            if child.tag == W + "p":
                self.paragraph(child)
            elif child.tag == W + "tbl":
                text = self.table(child)
                if text:
                    self.segments.append(Segment(text, section=self.path.text))

    def paragraph(self, p) -> None:
        boxes: list = []
        self.objects += sum(1 for tag in _OBJECTS for _ in p.iter(tag))
        text = _runs_text(p, boxes).strip()
        style = p.find(f"{W}pPr/{W}pStyle")
        name = self.names.get(style.get(W + "val") if style is not None else "", "")
        level = _level(name)
        if level is not None and text:
            text = clean_heading(text)
            self.path.enter(level, text)
            self.first_heading = self.first_heading or text
        elif text and (name.lower().startswith("list")
                       or p.find(f"{W}pPr/{W}numPr") is not None):
            text = "- " + text
        self.segments.append(Segment(text, section=self.path.text))
        for box in boxes:
            self.blocks(box)

    def table(self, tbl) -> str:
        rows = []
        for tr in (c for c in _children(tbl) if c.tag == W + "tr"):
            cells: list[str] = []
            for tc in (c for c in _children(tr) if c.tag == W + "tc"):
                merged_on = tc.find(f"{W}tcPr/{W}vMerge")
                if merged_on is not None and merged_on.get(W + "val") != "restart":
                    continue  # the cell above spans this one: its text was read there
                cells.append(self.cell(tc))
            rows.append(" | ".join(cells))
        return "\n".join(r for r in rows if r.strip(" |"))

    def cell(self, tc) -> str:
        parts = []
        for child in _children(tc):
            if child.tag == W + "p":
                boxes: list = []
                parts.append(" ".join(_runs_text(child, boxes).split()))
                parts += [" ".join(_runs_text(p, []).split()) for box in boxes
                          for p in box.iter(W + "p")]
            elif child.tag == W + "tbl":
                parts.append(self.table(child).replace("\n", " / "))
        return " ".join(p for p in parts if p)


def read_docx(data: bytes) -> Parsed:
    import docx

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
    walk = _Walk({s.style_id: s.name or "" for s in document.styles})
    walk.blocks(document.element.body)
    title = (document.core_properties.title or "").strip() or walk.first_heading
    notes = ()
    if walk.objects:
        notes = (f"its {walk.objects} embedded object{'s' if walk.objects > 1 else ''} "
                 "(charts, OLE objects) not read: only text is",)
    return Parsed(FORMAT, without_empty_tail(merged(walk.segments)), title, notes=notes)
