"""PDF (its text layer) by pypdfium2 (PDFium; Apache-2.0 / BSD-3): one segment a page, 1-based,
read by `pdf_lines` (columns, running headers and footers, hyphenation). Chosen over pdfminer.six
and pypdf by bench/ingest_readers.py (speed and text quality on generated PDFs; PyMuPDF was not
considered: it is AGPL). Filled form fields join their page's text (`pdf_forms`). A PDF with
no text layer and no filled field (scanned), a password, or damage is a `ReadError`, never an
empty document; pages without text among pages with text are named in a note."""

from __future__ import annotations

from .pdf_forms import form_lines, forms_of
from .pdf_lines import Line, merge_runs, page_text, reading_order, running_lines
from .records import Parsed, ReadError, Segment

FORMAT = "pdf"
EOF_WINDOW = 2048  # bytes at the end where a whole PDF has its %%EOF marker
UNTITLED = {"untitled", "(anonymous)"}  # what writers put when given no title


def check_pdf_bytes(data: bytes) -> None:
    if not data.lstrip()[:1024].startswith(b"%PDF") and b"%PDF-" not in data[:1024]:
        raise ReadError("not a PDF: it does not start with %PDF")
    if b"%%EOF" not in data[-EOF_WINDOW:]:
        raise ReadError("truncated or damaged PDF: no %%EOF end marker; copy the file again")


def page_lines(page) -> list[Line]:
    """The page's lines: PDFium's text rectangles (a run ends where the font or the spacing
    changes) merged into lines by position, each line's text then read once from its whole
    rectangle, so that PDFium spaces it (a run in a fallback font inside a word, "PPARγ", stays
    one word, and no overlapping run is read twice)."""
    text = page.get_textpage()
    try:
        runs = []
        for i in range(text.count_rects()):
            left, bottom, right, top = text.get_rect(i)
            runs.append(Line(left, bottom, right, top, "x"))
        lines = []
        for ln in merge_runs(runs):
            # PDFium marks a hyphen it takes for a line-end break as \x02 (\ufffe mid-text)
            found = text.get_text_bounded(ln.x0, ln.y0, ln.x1, ln.y1)
            found = found.replace("\x02", "-").replace("\ufffe", "-").replace("\r\n", " ")
            if found.strip():
                lines.append(Line(ln.x0, ln.y0, ln.x1, ln.y1, found.strip()))
    finally:
        text.close()
    return lines


def read_pdf(data: bytes) -> Parsed:
    import pypdfium2 as pdfium

    check_pdf_bytes(data)
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise ReadError("encrypted PDF: it needs a password; save a copy without one") \
                from None
        raise ReadError(f"damaged PDF ({exc}); open and save it again") from None
    try:
        pages, sizes, forms = [], [], []
        form = forms_of(doc)
        for page in doc:
            try:
                sizes.append(page.get_size())
                pages.append(page_lines(page))
                forms.append(form_lines(form, page) if form is not None else [])
            finally:
                page.close()
        title = (doc.get_metadata_dict().get("Title") or "").strip()
        title = "" if title.lower() in UNTITLED else title
    finally:
        doc.close()
    if not pages:
        raise ReadError("PDF with no pages")
    height = max(h for _, h in sizes)
    drop = running_lines(pages, height)
    segments = [Segment("\n".join(t for t in (page_text(reading_order(lines, w), drop, h),
                                               *fields) if t.strip()), page=n)
                for n, (lines, (w, h), fields) in enumerate(zip(pages, sizes, forms,
                                                                 strict=True), start=1)]
    if not any(s.text.strip() for s in segments):
        raise ReadError(f"no text layer in its {len(pages)} pages (a scanned PDF?); run OCR "
                        "on it first (e.g. ocrmypdf)")
    return Parsed(FORMAT, segments, title, {"pages": len(pages)}, notes=_blank_pages(segments))


def _blank_pages(segments: list[Segment]) -> tuple[str, ...]:
    """A note naming the pages with no text (scanned among typed ones), when there are any."""
    blank = [s.page for s in segments if not s.text.strip()]
    if not blank:
        return ()
    many = len(blank) > 1
    shown = ", ".join(map(str, blank[:10])) + (f" and {len(blank) - 10} more"
                                               if len(blank) > 10 else "")
    return (f"page{'s' if many else ''} {shown} of {len(segments)} "
            f"{'have' if many else 'has'} no text layer (scanned?): not read; run OCR on the "
            f"file (e.g. ocrmypdf) to read {'them' if many else 'it'}",)
