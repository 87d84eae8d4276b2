"""Pages read by OCR: a PDF page rendered at `ocr.DPI` and an image file's frames (PNG, JPEG,
TIFF: one page a frame), each through `ocr.ocr_image`. A page whose mean word confidence is below
`CONFIDENCE_FLOOR` is left out of the document and said in a note, never indexed silently."""

from __future__ import annotations

import io

from .ocr import (
    CONFIDENCE_FLOOR,
    DPI,
    LANGS,
    MAX_PIXELS,
    OcrPage,
    check_mode,
    ocr_image,
    tesseract_problem,
)
from .records import Parsed, ReadError, Segment

FORMAT = "image"
MAX_FRAMES = 500  # pages of a multi-page TIFF read


def _judged(found: OcrPage, page: int) -> tuple[OcrPage | None, str | None]:
    """The page when it may be indexed, else the note that says why not."""
    if not found.words:
        return None, f"page {page}: OCR found no text on it"
    if found.confidence < CONFIDENCE_FLOOR:
        return None, (f"page {page}: OCR read it with a mean confidence of "
                      f"{found.confidence:.0f} of 100, under the floor of {CONFIDENCE_FLOOR:.0f}:"
                      " left out (a blurred or faint scan? scan it again at 300 dpi)")
    return found, None


def render_page(doc, index: int, dpi: int = DPI):
    """Page `index` (0-based) of a `PdfDocument` as a greyscale PIL image at `dpi`."""
    page = doc[index]
    try:
        width, height = page.get_size()
        scale = dpi / 72
        if width * height * scale * scale > MAX_PIXELS:
            scale = (MAX_PIXELS / (width * height)) ** 0.5
        return page.render(scale=scale, grayscale=True).to_pil()
    finally:
        page.close()


def ocr_page(doc, index: int, langs: str = LANGS) -> tuple[OcrPage | None, str | None]:
    """Page `index` of a PDF read by OCR: (the page, None), or (None, the note leaving it out)."""
    return _judged(ocr_image(render_page(doc, index), langs), index + 1)


def image_frames(data: bytes):
    """The frames of an image file as PIL images (a TIFF may hold several)."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS  # a decompression bomb is refused, not decoded
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError) as exc:
        raise ReadError(f"not an image this reader can decode ({type(exc).__name__}: "
                        f"{str(exc)[:160]})") from None
    for n, frame in enumerate(ImageSequence.Iterator(image)):
        if n >= MAX_FRAMES:
            break
        yield frame.copy()


def read_image(data: bytes, ocr: str = "auto", langs: str = LANGS) -> Parsed:
    """An image of text (a scan, a photo of a page), read by OCR: one page a frame."""
    if check_mode(ocr) == "off":
        raise ReadError("an image: its text can only be read by OCR, and --ocr is off; use "
                        "--ocr auto")
    problem = tesseract_problem(langs)
    if problem:  # said before the image is decoded: what to install comes first
        raise ReadError(problem)
    segments, read, notes = [], {}, []
    for n, frame in enumerate(image_frames(data), start=1):
        found, note = _judged(ocr_image(frame, langs), n)
        if note:
            notes.append(note)
        if found is not None:
            read[n] = found
            segments.append(Segment(found.text, page=n))
    if not segments:
        raise ReadError("no text read by OCR: " + "; ".join(notes)[:400])
    layout = {"ocr": {str(n): p.confidence for n, p in read.items()}}
    return Parsed(FORMAT, segments, "", {"pages": n}, layout=layout, ocr=read, notes=tuple(notes))
