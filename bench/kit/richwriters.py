"""Files with structure, made by real writers, for the reader, highlight and OCR tests and
benches: a PDF with chapters and sections flowing over pages and an outline (bookmarks) by
reportlab, optionally with margin notes beside the text; slides by python-pptx (speaker notes
included); an EPUB by ebooklib; and scans: pages of a real PDF rendered by PDFium, or Chinese
text drawn by FreeType (Pillow) in Debian's Noto CJK font, as images or as a PDF of images."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

Chapter = tuple[str, list[tuple[str, str]]]  # (title, [(section title, text), ...])
NOTE = "New feature 1995/06/01"  # a margin note drawn beside every section (a repeated one)
CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


@dataclass
class Written:
    """Where a writer put things: each section's pages (1-based) and path, the notes drawn."""

    pages: dict[str, list[int]] = field(default_factory=dict)  # "Chapter > Section" -> pages
    notes: list[str] = field(default_factory=list)


def write_outlined_pdf(path: Path, chapters: Sequence[Chapter], *, outline: bool = True,
                       notes: bool = False, title: str = "", lines_per_page: int = 40
                       ) -> Written:
    """Chapters (16 pt bold) and sections (12 pt bold) over 10 pt text wrapped at 80
    characters, flowing from page to page (a section may start mid-page and end pages later);
    a page number at the foot. `outline`: a bookmark a heading, at its height, sections under
    their chapter. `notes`: a note in the left margin beside each section's second line (its
    own "Note N" and, on every section, `NOTE`)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    width, height = A4
    c = canvas.Canvas(str(path), pagesize=A4)
    if title:
        c.setTitle(title)
    written = Written()
    state = {"page": 1, "y": height - 72, "n": 0}

    def room(needed: float) -> None:
        if state["y"] - needed < 72:
            c.setFont("Helvetica", 9)
            c.drawString(width / 2 - 10, 36, str(state["page"]))
            c.showPage()
            state["page"] += 1
            state["y"] = height - 72

    def heading(text: str, size: int, level: int) -> None:
        room(size * 3)
        state["y"] -= size * 1.6
        key = f"h{state['n']}"
        state["n"] += 1
        c.setFont("Helvetica-Bold", size)
        c.drawString(72, state["y"], text)
        if outline:
            c.bookmarkHorizontal(key, 0, state["y"] + size + 2)
            c.addOutlineEntry(text, key, level=level)
        state["y"] -= size * 0.8

    for chapter, sections in chapters:
        heading(chapter, 16, 0)
        for n, (section, text) in enumerate(sections):
            heading(section, 12, 1)
            pages = written.pages.setdefault(f"{chapter} > {section}", [])
            for i, line in enumerate(textwrap.wrap(text, 80)):
                room(14)
                state["y"] -= 14
                c.setFont("Helvetica", 10)
                c.drawString(72, state["y"], line)
                if notes and i == 1:
                    own = f"Note {len(written.notes) + 1}"
                    written.notes.append(own)
                    c.setFont("Helvetica-Oblique", 7)
                    c.drawString(14, state["y"] + 1, own)
                    for k, part in enumerate(NOTE.rsplit(" ", 1)):  # in the margin, two lines
                        c.drawString(14, state["y"] - 8 - 8 * k, part)
                if state["page"] not in pages:
                    pages.append(state["page"])
            state["y"] -= 8  # a paragraph's gap
            del n
    c.setFont("Helvetica", 9)
    c.drawString(width / 2 - 10, 36, str(state["page"]))
    c.showPage()
    c.save()
    return written


def write_pptx(path: Path, slides: Sequence[tuple[str, list[str], str]]) -> Path:
    """One slide a (title, bullet points, speaker notes) by python-pptx."""
    from pptx import Presentation

    deck = Presentation()
    for title, points, notes in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = points[0] if points else ""
        for point in points[1:]:
            body.add_paragraph().text = point
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(str(path))
    return path


def write_epub(path: Path, chapters: Sequence[Chapter], *, title: str = "A book",
               lang: str = "en") -> Path:
    """One XHTML chapter a `Chapter` (an h1, then an h2 and paragraph a section) by ebooklib,
    in a spine and a table of contents."""
    import html

    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("bertscope-test-book")
    book.set_title(title)
    book.set_language(lang)
    items = []
    for n, (chapter, sections) in enumerate(chapters, start=1):
        body = "".join(f"<h2>{html.escape(s)}</h2><p>{html.escape(t)}</p>" for s, t in sections)
        item = epub.EpubHtml(title=chapter, file_name=f"chap_{n}.xhtml", lang=lang)
        item.content = f"<html><body><h1>{html.escape(chapter)}</h1>{body}</body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    epub.write_epub(str(path), book)
    return path


def rendered_pages(pdf: Path, pages: Sequence[int], dpi: int = 300) -> list:
    """Pages (1-based) of a real PDF as greyscale PIL images, rendered by PDFium at `dpi`."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        return [doc[n - 1].render(scale=dpi / 72, grayscale=True).to_pil() for n in pages]
    finally:
        doc.close()


def page_truth(pdf: Path, page: int) -> str:
    """The text layer of a page (1-based) of a real PDF, as PDFium reads it."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        return doc[page - 1].get_textpage().get_text_range()
    finally:
        doc.close()


def chinese_page(lines: Sequence[str], *, size: int = 42, width: int = 2480, height: int = 3508):
    """Chinese text drawn by FreeType in Noto Sans CJK on an A4 page at 300 dpi (one line a
    string), as a greyscale PIL image; needs Debian's fonts-noto-cjk."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(CJK_FONT), size, index=2)  # index 2: Simplified Chinese
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((250, 300 + n * int(size * 1.8)), line, font=font, fill=0)
    return image


def scanned_pdf(path: Path, images: Sequence, dpi: int = 300) -> Path:
    """A PDF of page images only (no text layer), as a scanner writes one, by reportlab."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    for image in images:
        w, h = image.width * 72 / dpi, image.height * 72 / dpi
        c.setPageSize((w, h))
        c.drawImage(ImageReader(image.convert("RGB")), 0, 0, w, h)
        c.showPage()
    c.save()
    return path
