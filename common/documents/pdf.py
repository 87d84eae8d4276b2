"""PDF by pypdfium2 (PDFium; Apache-2.0 / BSD-3): its text layer read by `pdf_lines` (columns,
running headers and footers, margin notes, hyphenation), its pages split into sections by the
outline (bookmarks), else by headings found by font size and weight (`pdf_sections`); a page
with no text layer read by OCR (`ocr`, by `--ocr`). One segment a page and section, pages
1-based. Chosen over pdfminer.six and pypdf by bench/ingest_readers.py (speed and text quality
on generated PDFs; PyMuPDF was not considered: it is AGPL). A PDF with no text (a scan with OCR
off), a password, or damage is a `ReadError`, never an empty document. Filled form fields
join their page's text as lines after it (`pdf_forms`: a page's text layer holds none of them);
pages left without text among pages with text (OCR off or failed) are named in a note.

`page_reading` is the one way a page becomes text: reading a file and highlighting a chunk on
its page both call it, so the characters under a chunk are the ones it was read from."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

from .ocr import LANGS, OcrPage, check_mode
from .pdf_forms import form_lines, forms_of
from .pdf_lines import (
    Line,
    PageText,
    margin_notes,
    merge_runs,
    page_map,
    reading_order,
    repeated_notes,
    running_lines,
)
from .pdf_sections import Heading, heading_lines, outline, section_segments
from .records import Parsed, ReadError, Segment

FORMAT = "pdf"
EOF_WINDOW = 2048  # bytes at the end where a whole PDF has its %%EOF marker
UNTITLED = {"untitled", "(anonymous)"}  # what writers put when given no title
BOLD_NAMES = ("bold", "black", "heavy", "semibold", "demi", "cmbx")  # font names of bold faces


def check_pdf_bytes(data: bytes) -> None:
    if not data.lstrip()[:1024].startswith(b"%PDF") and b"%PDF-" not in data[:1024]:
        raise ReadError("not a PDF: it does not start with %PDF")
    if b"%%EOF" not in data[-EOF_WINDOW:]:
        raise ReadError("truncated or damaged PDF: no %%EOF end marker; copy the file again")


def open_pdf(data: bytes):
    """The PDF as a `pypdfium2.PdfDocument`; `ReadError` for a password or damage."""
    import pypdfium2 as pdfium

    check_pdf_bytes(data)
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise ReadError("encrypted PDF: it needs a password; save a copy without one") \
                from None
        raise ReadError(f"damaged PDF ({exc}); open and save it again") from None


def _font(textpage, index: int) -> tuple[float, bool]:
    """(size, bold) of character `index`."""
    import pypdfium2.raw as raw

    size = raw.FPDFText_GetFontSize(textpage.raw, index)
    weight = raw.FPDFText_GetFontWeight(textpage.raw, index)
    name = ctypes.create_string_buffer(128)
    raw.FPDFText_GetFontInfo(textpage.raw, index, name, 128, None)
    named = name.value.decode("latin-1").lower()
    return float(size), weight >= 500 or any(b in named for b in BOLD_NAMES)


def _line_font(textpage, ln: Line) -> tuple[float, bool]:
    """The font of a line, from three characters along it (the middle one's, where they differ)."""
    import pypdfium2.raw as raw

    found = []
    y = (ln.y0 + ln.y1) / 2
    for x in (ln.x0 + 0.2 * (ln.x1 - ln.x0), (ln.x0 + ln.x1) / 2, ln.x1 - 0.2 * (ln.x1 - ln.x0)):
        i = raw.FPDFText_GetCharIndexAtPos(textpage.raw, x, y, 2.0, ln.height / 2)
        if i >= 0:
            found.append(_font(textpage, i))
    if not found:
        return 0.0, False
    sizes = sorted(f[0] for f in found)
    return sizes[len(sizes) // 2], sum(f[1] for f in found) * 2 > len(found)


@dataclass
class CharBoxes:
    """Every character of a text page: its unicode and box (left, bottom, right, top)."""

    codes: list[int] = field(default_factory=list)
    boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    _middles: tuple | None = field(default=None, repr=False)  # numpy x, y of each box's middle

    @classmethod
    def of(cls, textpage) -> CharBoxes:
        import pypdfium2.raw as raw

        out = cls()
        left, right, bottom, top = (ctypes.c_double() for _ in range(4))
        for i in range(textpage.count_chars()):
            out.codes.append(raw.FPDFText_GetUnicode(textpage.raw, i))
            raw.FPDFText_GetCharBox(textpage.raw, i, left, right, bottom, top)
            out.boxes.append((left.value, bottom.value, right.value, top.value))
        return out

    def inside(self, ln: Line) -> list[int]:
        """Indexes of the characters whose middle lies in `ln`'s box, in text page order."""
        import numpy as np

        if self._middles is None:
            boxes = np.asarray(self.boxes, dtype=np.float64).reshape(-1, 4)
            self._middles = ((boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2)
        x, y = self._middles
        found = (x >= ln.x0 - 1) & (x <= ln.x1 + 1) & (y >= ln.y0 - 1) & (y <= ln.y1 + 1)
        return np.flatnonzero(found).tolist()


def _aligned(raw_text: str, candidates: list[int], chars: CharBoxes) -> list[int]:
    """For each character of `raw_text` (PDFium's text of a box), the text page index it came
    from: the next candidate with its code, a ligature ("ﬁ") giving each of its letters (-1 for
    a space or line break PDFium put there)."""
    import unicodedata

    spelled = [unicodedata.normalize("NFKC", chr(chars.codes[c])) for c in candidates]
    out, at, inner = [], 0, 0  # the candidate, and the letter of its spelling, to match next
    for ch in raw_text:
        if ch.isspace():
            out.append(-1)
            continue
        if at < len(candidates) and spelled[at][inner:inner + 1] == ch:
            out.append(candidates[at])
            inner += 1
            if inner >= len(spelled[at]):
                at, inner = at + 1, 0
            continue
        j = at + (inner > 0)
        while j < len(candidates) and chr(chars.codes[candidates[j]]) != ch \
                and not spelled[j].startswith(ch):
            j += 1
        if j < len(candidates):
            out.append(candidates[j])
            at, inner = (j, 1) if len(spelled[j]) > 1 and spelled[j][0] == ch else (j + 1, 0)
        else:
            out.append(-1)
    return out


def _clean(raw_text: str, ids: list[int] | None) -> tuple[str, list[int] | None]:
    """PDFium's line text as read: a hyphen it takes for a line-end break (\\x02, \\ufffe mid-
    text) as "-", its line breaks as spaces, outer spaces stripped; `ids` kept in step."""
    text, out = [], []
    ids = ids if ids is not None else [-1] * len(raw_text)
    i = 0
    while i < len(raw_text):
        ch = raw_text[i]
        if ch == "\r" and raw_text[i + 1:i + 2] == "\n":
            text.append(" ")
            out.append(-1)
            i += 2
            continue
        text.append("-" if ch in "\x02\ufffe" else ch)
        out.append(ids[i])
        i += 1
    joined = "".join(text)
    lead = len(joined) - len(joined.lstrip())
    kept = joined.strip()
    return kept, out[lead:lead + len(kept)]


def page_lines(page, chars: CharBoxes | None = None) -> list[Line]:
    """The page's lines: PDFium's text rectangles (a run ends where the font or the spacing
    changes) merged into lines by position, each line's text then read once from its whole
    rectangle, so that PDFium spaces it (a run in a fallback font inside a word, "PPARγ", stays
    one word, and no overlapping run is read twice), with its font's size and weight. With
    `chars` (the page's `CharBoxes`), each line keeps its characters' text page indexes."""
    text = page.get_textpage()
    try:
        runs = []
        for i in range(text.count_rects()):
            left, bottom, right, top = text.get_rect(i)
            runs.append(Line(left, bottom, right, top, "x"))
        lines = []
        for ln in merge_runs(runs):
            found = text.get_text_bounded(ln.x0, ln.y0, ln.x1, ln.y1)
            ids = _aligned(found, chars.inside(ln), chars) if chars is not None else None
            found, ids = _clean(found, ids)
            if found:
                size, bold = _line_font(text, ln)
                lines.append(Line(ln.x0, ln.y0, ln.x1, ln.y1, found,
                                  tuple(ids) if chars is not None else (), size, bold))
    finally:
        text.close()
    return lines


def has_images(page) -> bool:
    """Whether the page draws an image (a scanned page does; a blank one does not)."""
    import pypdfium2.raw as raw

    return any(obj.type == raw.FPDF_PAGEOBJ_IMAGE for obj in page.get_objects(max_depth=2))


def page_reading(lines: list[Line], size: tuple[float, float], drop: set[str]) -> PageText:
    """A page's lines as its reading text: margin notes apart, columns in order, `drop`ped
    running lines and repeated notes left out."""
    width, height = size
    body, notes = margin_notes(lines, width)
    return page_map(reading_order(body, width), drop, height, notes)


def dropped_lines(pages: list[list[Line]], sizes: list[tuple[float, float]]) -> set[str]:
    """The keys of lines no page's text keeps: running headers and footers, repeated notes."""
    height = max(h for _, h in sizes)
    notes = [margin_notes(lines, w)[1] for lines, (w, _) in zip(pages, sizes, strict=True)]
    return running_lines(pages, height) | repeated_notes(notes)


def read_pdf(data: bytes, ocr: str = "auto", langs: str = LANGS) -> Parsed:
    from .ocr_pages import ocr_page

    check_mode(ocr)
    doc = open_pdf(data)
    try:
        pages, sizes, scanned, forms = [], [], [], []
        form = forms_of(doc)
        for page in doc:
            try:
                sizes.append(page.get_size())
                lines = page_lines(page) if ocr != "force" else []
                pages.append(lines)
                forms.append(form_lines(form, page) if form is not None else [])
                scanned.append(not lines and not forms[-1]
                               and (ocr == "force" or has_images(page)))
            finally:
                page.close()
        marks = outline(doc, len(pages))
        title = (doc.get_metadata_dict().get("Title") or "").strip()
        title = "" if title.lower() in UNTITLED else title
        drop = dropped_lines(pages, sizes) if pages else set()
        texts: list[PageText] = [page_reading(lines, size, drop)
                                 for lines, size in zip(pages, sizes, strict=True)]
        read: dict[int, OcrPage] = {}
        notes: list[str] = []
        if ocr != "off" and any(scanned):
            for n, is_scan in enumerate(scanned):
                if is_scan:
                    read_by, note = ocr_page(doc, n, langs)
                    if note:
                        notes.append(note)
                    if read_by is not None:
                        read[n + 1] = read_by
                        texts[n] = PageText(read_by.text)
    finally:
        doc.close()
    if not pages:
        raise ReadError("PDF with no pages")
    for text, fields in zip(texts, forms, strict=True):
        with_fields(text, fields)
    headings: list[list[Heading]] = outline_or_headings(marks, texts, read)
    segments = section_segments(texts, headings)
    if not any(s.text.strip() for s in segments):
        if any(scanned) and ocr == "off":
            raise ReadError(f"no text layer in its {len(pages)} pages (a scanned PDF?): read it "
                            "with --ocr auto (Tesseract)")
        if notes:
            raise ReadError(f"no text: {'; '.join(notes)[:400]}")
        raise ReadError(f"no text layer in its {len(pages)} pages and no image to read by OCR")
    layout = {"drop": sorted(drop)} if drop else {}
    if read:
        layout["ocr"] = {str(n): p.confidence for n, p in read.items()}
    return Parsed(FORMAT, segments, title, {"pages": len(pages)}, layout=layout, ocr=read,
                  notes=(*notes, *_blank_pages(texts, scanned, ocr)))


def with_fields(text: PageText, fields: list[str]) -> None:
    """A page's filled form fields as lines after its text (no character boxes: a highlight
    marks none of them)."""
    for line in fields:
        if text.text:
            text.add("\n")
        text.add(line)


def _blank_pages(texts: list[PageText], scanned: list[bool], ocr: str) -> tuple[str, ...]:
    """A note naming the pages left with no text among pages with text, when any are: those
    OCR tried have their own note (`ocr_page`); a scan with OCR off, or a page with nothing
    drawn on it."""
    tried = ocr != "off"
    blank = [n for n, (t, s) in enumerate(zip(texts, scanned, strict=True), start=1)
             if not t.text.strip() and not (s and tried)]
    if not blank:
        return ()
    scans = [n for n in blank if scanned[n - 1]]
    return tuple(note for pages, why in (
        (scans, "no text layer (scanned?): not read; read it with --ocr auto (Tesseract)"),
        ([n for n in blank if not scanned[n - 1]], "no text layer and no image (blank?)"))
        if (note := _pages_note(pages, len(texts), why)))


def _pages_note(pages: list[int], total: int, why: str) -> str:
    if not pages:
        return ""
    shown = ", ".join(map(str, pages[:10])) + (f" and {len(pages) - 10} more"
                                               if len(pages) > 10 else "")
    return f"page{'s' if len(pages) > 1 else ''} {shown} of {total}: {why}"


def outline_or_headings(marks, texts: list[PageText], read: dict[int, OcrPage]
                        ) -> list[list[Heading]]:
    """Each page's section starts: from the outline where the PDF has one, else from its lines
    set in a heading's font (OCR'd pages have no fonts: none found there)."""
    if marks is not None:
        from .pdf_sections import place_outline

        return place_outline(marks, texts)
    return heading_lines(texts)


def segments_of_page(texts: list[PageText], headings: list[list[Heading]], page: int
                     ) -> list[Segment]:
    """The segments of 1-based `page` (what `read_pdf` made of it)."""
    return [s for s in section_segments(texts, headings) if s.page == page]
