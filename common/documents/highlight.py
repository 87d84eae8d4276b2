"""A chunk where it stands: the boxes of its characters on each page it reaches, and the page
drawn as a PNG with them marked. The page is read again from the original file exactly as
reading it did (`pdf.page_reading`, with the running lines the layout kept), each of the
document's segments on that page is found in that text, and the chunk's characters there are
mapped to PDFium's character boxes (an OCR'd page: to its words' boxes). A segment not found
means the file was read differently (another version of the reader): a `HighlightError`, never
boxes at stale offsets. Boxes are in PDF points from the page's top left corner.

    boxes = page_boxes(data, doc.metadata, hit.start, hit.end, page=10)
    png = page_png(data, doc.metadata, 10, boxes.boxes)
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from .layout import LAYOUT_KEY
from .layout import layout_of as _layout
from .ocr import LANGS, OcrPage
from .pdf import CharBoxes, dropped_lines, open_pdf, page_lines, page_reading
from .pdf_lines import PageText
from .records import ReadError

RENDER_SCALE = 1.5  # 108 dpi: a letter page 918 x 1188 pixels
FILL = (255, 196, 0, 110)  # translucent amber, as the app marks text
EDGE = (230, 140, 0, 255)
Box = tuple[float, float, float, float]  # left, top, right, bottom (points, from the top left)


class HighlightError(ValueError):
    """The chunk cannot be placed on the page (the message says why and what to do)."""


@dataclass(frozen=True)
class PageBoxes:
    page: int  # 1-based
    width: float  # the page's size in points
    height: float
    boxes: list[Box] = field(default_factory=list)
    text: str = ""  # the chunk's characters on this page, in reading order

    def to_json(self) -> dict:
        return {"page": self.page, "width": round(self.width, 2), "height": round(self.height, 2),
                "boxes": [[round(v, 2) for v in b] for b in self.boxes], "text": self.text}


def chunk_pages(metadata: dict, start: int, end: int) -> list[int]:
    """The pages the chunk `[start, end)` has characters on, in order."""
    layout = _layout(metadata)
    if layout is None:
        return []
    pages = [p for s, e, p, _ in layout["spans"] if p is not None and s < end and start < e]
    return list(dict.fromkeys(pages))


SENTENCE_ENDS = ".!?。！？…"


def passage_pages(metadata: dict, text: str, start: int, end: int
                  ) -> list[tuple[int, int, int]]:
    """(page, start, end) of the passage to mark on each page: the chunk on its page and, where
    its sentence goes on over the page break (the chunk ends its page's text mid-sentence and
    its section goes on over the next page), the words that finish it there."""
    layout = _layout(metadata)
    if layout is None:
        return []
    spans = layout["spans"]
    out = [(p, max(s, start), min(e, end)) for s, e, p, _ in spans
           if p is not None and s < end and start < e]
    if not out:
        return []
    at = next(i for i, (s, e, p, _) in enumerate(spans) if s < end and start < e)
    while at + 1 < len(spans) and spans[at + 1][0] < end:
        at += 1
    s, e, page, section = spans[at]
    if end < e or at + 1 >= len(spans) or text[s:e].rstrip()[-1:] in SENTENCE_ENDS:
        return out
    ns, ne, next_page, next_section = spans[at + 1]
    if next_page != page + 1 or next_section != section:
        return out
    stop = next((i + 1 for i in range(ns, ne) if text[i] in SENTENCE_ENDS), ne)
    return out + [(next_page, ns, stop)]


def _page_spans(layout: dict, page: int) -> list[tuple[int, int]]:
    return [(s, e) for s, e, p, _ in layout["spans"] if p == page]


def _ocr_text(found: OcrPage) -> PageText:
    """An OCR'd page as `PageText`: each character's id is its word's number (-1 between)."""
    ids = [-1] * len(found.text)
    for n, w in enumerate(found.words):
        ids[w.start:w.end] = [n] * (w.end - w.start)
    return PageText(found.text, ids)


def _ocr_page(doc, data: bytes, metadata: dict, page: int, langs: str) -> OcrPage:
    from .ocr_cache import kept_ocr
    from .ocr_pages import image_frames, ocr_page

    kept = kept_ocr(metadata.get("sha256", ""), page)
    if kept is not None:
        return kept
    if doc is None:  # an image file: its frame
        from .ocr import ocr_image

        frame = next((f for n, f in enumerate(image_frames(data), start=1) if n == page), None)
        if frame is None:
            raise HighlightError(f"the image has no page {page}")
        return ocr_image(frame, langs)
    found, note = ocr_page(doc, page - 1, langs)
    if found is None:
        raise HighlightError(f"page {page} no longer reads by OCR as it did: {note}")
    return found


def _located(page_text: str, pieces: list[str], page: int) -> list[int]:
    """Where each of the page's segments starts in the page's text read now."""
    at, out = 0, []
    for piece in pieces:
        found = page_text.find(piece, at)
        if found < 0:
            raise HighlightError(
                f"page {page} of the file reads differently now than when it was indexed (an "
                "index made by another version of the reader?): sync the index again "
                "(python -m indexer sync) to highlight it")
        out.append(found)
        at = found + len(piece)
    return out


def page_boxes(data: bytes, metadata: dict, text: str, start: int, end: int, page: int, *,
               langs: str = LANGS) -> PageBoxes:
    """The boxes of the chunk `text[start:end]` of a document read from `data` (a PDF or an
    image, its metadata and layout as indexed) on 1-based `page`."""
    layout = _layout(metadata)
    if layout is None:
        raise HighlightError("the document has no pages (it was not read from a PDF or an "
                             "image file)")
    spans = _page_spans(layout, page)
    if not spans:
        raise HighlightError(f"the document has no text on page {page}")
    is_pdf = metadata.get("format") == "pdf"
    doc = open_pdf(data) if is_pdf else None
    try:
        if doc is not None and not 1 <= page <= len(doc):
            raise HighlightError(f"the PDF has {len(doc)} pages, not {page}")
        ocr = str(page) in layout.get("ocr", {})
        if ocr:
            found = _ocr_page(doc, data, metadata, page, langs)
            read, word_boxes = _ocr_text(found), found.words
            width, height, scale = _size(doc, page, found)
        else:
            read, chars, (width, height) = _pdf_page(doc, page, layout)
            scale = 1.0
    finally:
        if doc is not None:
            doc.close()
    pieces = [text[s:e] for s, e in spans]
    where = _located(read.text, pieces, page)
    ids, shown = [], []
    for (s, e), at in zip(spans, where, strict=True):
        a, b = max(s, start), min(e, end)
        if a < b:
            ids += [i for i in read.ids[at + a - s:at + b - s] if i >= 0]
            shown.append(text[a:b])
    if ocr:
        boxes = [_scaled(word_boxes[i].box, scale) for i in dict.fromkeys(ids)]
        boxes = _merged_words(boxes)
    else:
        boxes = _char_rects([chars.boxes[i] for i in ids], height)
    boxes = [_inside(b, width, height) for b in boxes]
    return PageBoxes(page, width, height, [b for b in boxes if b[2] > b[0] and b[3] > b[1]],
                     "\n".join(shown))


def _pdf_page(doc, page: int, layout: dict):
    """(the page's text as read, its characters' boxes, its size) of 1-based `page`."""
    if "drop" in layout:
        drop = set(layout["drop"])
    else:  # an index made before the layout kept them: found again from every page
        pages, sizes = [], []
        for p in doc:
            try:
                sizes.append(p.get_size())
                pages.append(page_lines(p))
            finally:
                p.close()
        drop = dropped_lines(pages, sizes)
    pdf_page = doc[page - 1]
    try:
        textpage = pdf_page.get_textpage()
        try:
            chars = CharBoxes.of(textpage)
        finally:
            textpage.close()
        size = pdf_page.get_size()
        read = page_reading(page_lines(pdf_page, chars), size, drop)
    finally:
        pdf_page.close()
    return read, chars, size


def _size(doc, page: int, found: OcrPage) -> tuple[float, float, float]:
    """(width, height, points a pixel) of an OCR'd page: the PDF page's, or the image's."""
    if doc is None:
        return float(found.size[0]), float(found.size[1]), 1.0
    pdf_page = doc[page - 1]
    try:
        width, height = pdf_page.get_size()
    finally:
        pdf_page.close()
    return width, height, width / max(found.size[0], 1)


def _scaled(box: tuple[int, int, int, int], scale: float) -> Box:
    return box[0] * scale, box[1] * scale, box[2] * scale, box[3] * scale


def _inside(box: Box, width: float, height: float) -> Box:
    return (min(max(box[0], 0.0), width), min(max(box[1], 0.0), height),
            min(max(box[2], 0.0), width), min(max(box[3], 0.0), height))


def _char_rects(boxes: list[tuple[float, float, float, float]], height: float) -> list[Box]:
    """Character boxes (PDF: left, bottom, right, top) merged into one rectangle a run of a line,
    in top-left coordinates."""
    out: list[list[float]] = []
    for x0, y0, x1, y1 in boxes:
        if x1 <= x0 or y1 <= y0:
            continue
        top, bottom = height - y1, height - y0
        if out:
            r = out[-1]
            tall = max(r[3] - r[1], bottom - top)
            low = min(r[3] - r[1], bottom - top)  # a comma's box is a fraction of a letter's
            same_line = min(r[3], bottom) - max(r[1], top) > 0.3 * low
            if same_line and -0.5 * tall <= x0 - r[2] < 2 * tall:
                r[0], r[1], r[2], r[3] = min(r[0], x0), min(r[1], top), max(r[2], x1), \
                    max(r[3], bottom)
                continue
        out.append([x0, top, x1, bottom])
    return [tuple(r) for r in out]


def _merged_words(boxes: list[Box]) -> list[Box]:
    """Word boxes (top-left coordinates) of one line side by side as one rectangle."""
    out: list[list[float]] = []
    for x0, top, x1, bottom in boxes:
        if out:
            r = out[-1]
            tall = max(r[3] - r[1], bottom - top)
            if min(r[3], bottom) - max(r[1], top) > 0.3 * tall and 0 <= x0 - r[2] < 2 * tall:
                r[1], r[2], r[3] = min(r[1], top), max(r[2], x1), max(r[3], bottom)
                continue
        out.append([x0, top, x1, bottom])
    return [tuple(r) for r in out]


def _palette() -> list[int]:
    """Greys (7 bits), the same greys under translucent amber (6 bits), the boxes' edge."""
    out = []
    for v in range(128):
        g = 2 * v + 1
        out += [g, g, g]
    alpha = FILL[3] / 255
    for v in range(64):
        g = 4 * v + 2
        out += [round(g * (1 - alpha) + c * alpha) for c in FILL[:3]]
    out += list(EDGE[:3])
    return out + [0] * (768 - len(out))


def _marked(gray, boxes: list[Box], scale: float):
    """A greyscale page with `boxes` (scaled) in amber, as a one-byte-a-pixel palette image:
    a third of an RGB page's bytes to compress (bench/results/highlight.md)."""
    import numpy as np
    from PIL import Image

    grey = np.asarray(gray.convert("L"), dtype=np.uint8)
    out = grey >> 1
    height, width = grey.shape
    for x0, top, x1, bottom in boxes:
        a, b = max(0, int(x0 * scale) - 1), min(width, int(x1 * scale) + 2)
        c, d = max(0, int(top * scale) - 1), min(height, int(bottom * scale) + 2)
        if a >= b or c >= d:
            continue
        out[c:d, a:b] = 128 + (grey[c:d, a:b] >> 2)
        out[c, a:b] = out[d - 1, a:b] = 192
        out[c:d, a] = out[c:d, b - 1] = 192
    image = Image.fromarray(out, "P")
    image.putpalette(_palette())
    return image


def page_png(data: bytes, metadata: dict, page: int, boxes: list[Box] = (), *,
             scale: float = RENDER_SCALE) -> bytes:
    """Page `page` of a PDF (or frame of an image) as a PNG in greys, `boxes` (points, or an
    image's pixels) marked in translucent amber. Greys: the page's colours are not what a reader
    looks for here, and a palette PNG is quick to write."""
    if metadata.get("format") == "pdf":
        doc = open_pdf(data)
        try:
            if not 1 <= page <= len(doc):
                raise HighlightError(f"the PDF has {len(doc)} pages, not {page}")
            pdf_page = doc[page - 1]
            try:
                image = pdf_page.render(scale=scale, grayscale=True).to_pil()
            finally:
                pdf_page.close()
        finally:
            doc.close()
    else:
        from .ocr_pages import image_frames

        try:
            frame = next((f for n, f in enumerate(image_frames(data), start=1) if n == page),
                         None)
        except ReadError as exc:
            raise HighlightError(str(exc)) from None
        if frame is None:
            raise HighlightError(f"the image has no page {page}")
        scale = min(1.0, 1600 / max(frame.width, 1))  # a 300 dpi scan drawn ~1600 px wide
        image = frame.convert("L")
        if scale < 1.0:
            image = image.resize((round(frame.width * scale), round(frame.height * scale)))
    out = io.BytesIO()
    _marked(image, list(boxes), scale).save(out, "PNG", compress_level=1)
    return out.getvalue()


def has_pages(metadata: dict) -> bool:
    """Whether a document's pages can be drawn (a PDF or an image file)."""
    return metadata.get("format") in ("pdf", "image") and LAYOUT_KEY in metadata
