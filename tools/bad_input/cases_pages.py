"""Bad input to what issue 51 added: the PowerPoint, EPUB and image readers (damaged, mislabelled
and undecodable files in a folder), `--ocr` on build and sync, the page routes of the service
(`/documents/{id}/pages/{n}.png?highlight=`, `/documents/{id}/highlight?chunk=`) over an index
synced from a folder of files, and the library calls behind them."""

from __future__ import annotations

import io
import zipfile

from .probe import Case, Outcome, call, cli

M = ["--model", "minilm"]
SERVICE = "service (HTTP)"
LIBRARY = "documents library (common.documents, indexer.pages)"


def _zip(name: str, content: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(name, content)
    return buffer.getvalue()


def _png_of_text() -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("L", (600, 120), 255)
    ImageDraw.Draw(image).text((20, 40), "Invoice 2024: oil, gas and power", fill=0)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


FILES: dict[str, str | bytes] = {
    "show/good.md": "# Notes\n\nCrude oil prices rose in the spring.\n",
    "show/broken.pptx": b"plain text, not a zip archive\n" * 8,
    "show/nopres.pptx": _zip("content.xml", "<a/>"),
    "show/broken.epub": _zip("chapter.xhtml", "<html/>"),
    "show/garbage.png": b"\x89PNG\r\n\x1a\n" + b"\x13\x37" * 64,
    "show/anim.png": b"GIF89a" + b"\x00" * 64,
    "show/cut.tiff": b"II*\x00" + b"\xff" * 32,
    "scans/readme.md": "# Scans\n\nThe scanned invoices of 2024.\n",
}


def _scan(ws) -> None:
    path = ws.root / "scans" / "photo.png"
    if not path.exists():
        path.write_bytes(_png_of_text())


def _cli(command: str, bad: str, *argv: str, expect: str | int = "refused", note: str = "",
         before=None) -> Case:
    run = cli("indexer", command, *argv)

    def with_files(ws) -> Outcome:
        if before is not None:
            before(ws)
        return run(ws)

    return Case(f"python -m indexer {command}", bad, with_files, expect, note)


CLI = [
    _cli("build", "--corpus a folder of damaged slides, e-books and images", "--corpus",
         "{W}/show", "--out", "{W}/show-idx", *M, expect=0,
         note="each is one line naming it and why (not a zip, no presentation, no container, "
              "an image that does not decode, a GIF named .png, a cut TIFF); the Markdown file "
              "is indexed"),
    _cli("build", "--ocr psychic", "--corpus", "{W}/show", "--out", "{W}/o", "--ocr",
         "psychic", *M, expect=2),
    _cli("sync", "--ocr psychic", "{W}/show", "{W}/o-sync", "--ocr", "psychic", *M, expect=2),
    _cli("sync", "--ocr '' (empty)", "{W}/show", "{W}/o-sync", "--ocr", "", *M, expect=2),
    _cli("sync", "--ocr off on a folder with an image of text", "{W}/scans", "{W}/scans-idx",
         "--ocr", "off", *M, expect=0, before=_scan,
         note="the image is reported (its text needs OCR, which is off); the rest is indexed"),
]


# -- the page routes, over W/service/files: a reportlab PDF and a Markdown file, synced --------
def _files_index(ws):
    """W/service/files: W/pdfs (a two-page outlined PDF and notes.md) synced with minilm."""
    root = ws.root / "service" / "files"
    if not root.exists():
        from indexer import sync_folder

        from . import cases_library

        folder = ws.root / "pdfs"
        folder.mkdir(exist_ok=True)
        _two_page_pdf(folder / "guide.pdf")
        (folder / "notes.md").write_text("# Notes\n\nCrude oil prices rose.\n",
                                         encoding="utf-8")
        sync_folder(folder, root, model=cases_library.shared_minilm(), preset="flat")
    return root


def _two_page_pdf(path) -> None:
    """A PDF by reportlab: a bookmarked heading, then lines of text over two pages."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, 770, "1 Prices")
    c.bookmarkHorizontal("prices", 0, 786)
    c.addOutlineEntry("1 Prices", "prices", level=0)
    c.setFont("Helvetica", 10)
    for n in range(90):
        if n == 50:
            c.showPage()
            c.setFont("Helvetica", 10)
        y = 740 - 14 * (n % 50)
        c.drawString(72, y, f"Oil prices rose in region {n} while output slowed in sector {n}.")
    c.showPage()
    c.save()


def _get(path: str, *, change_file: bool = False):
    """A case runner: GET `path` ({CHUNK}: a chunk of guide.pdf) on the service."""
    from .service_http import answered, service_client

    def run(ws) -> Outcome:
        _files_index(ws)
        from indexer import SemanticIndex

        url = path
        if "{CHUNK}" in url:
            index = SemanticIndex.open(ws.root / "service" / "files", encoder=None)
            url = url.replace("{CHUNK}", str(index.chunk_spans("guide.pdf")[1][0]))
        pdf = ws.root / "pdfs" / "guide.pdf"
        kept = pdf.read_bytes()
        if change_file:
            pdf.write_bytes(kept + b"\n% saved again\n")
        try:
            response = service_client(ws).get(url)
        finally:
            pdf.write_bytes(kept)
        if response.headers.get("content-type") == "image/png" and response.status_code == 200:
            return Outcome("HTTP 200", f"image/png, {len(response.content):,} bytes",
                           code=200)
        return answered(response)

    return run


P = "/v1/indexes/files/documents"


def _page(bad: str, path: str, expect, *names, note: str = "", change_file: bool = False):
    return Case(SERVICE, f"pages: {bad}", _get(path, change_file=change_file), expect, note,
                tuple(names), unit="HTTP")


ROUTES = [
    _page("a page with its chunk marked (as meant)", f"{P}/guide.pdf/pages/1.png?highlight="
          "{CHUNK}", 200),
    _page("page 0", f"{P}/guide.pdf/pages/0.png", 422, "page"),
    _page("page 'one'", f"{P}/guide.pdf/pages/one.png", 422, "page"),
    _page("page 10^12", f"{P}/guide.pdf/pages/1000000000000.png", 422, "page"),
    _page("page 99 of a 2-page PDF", f"{P}/guide.pdf/pages/99.png", 404, "not 99"),
    _page("highlight=-1", f"{P}/guide.pdf/pages/1.png?highlight=-1", 422, "highlight"),
    _page("highlight=abc", f"{P}/guide.pdf/pages/1.png?highlight=abc", 422, "highlight"),
    _page("highlight=2^64 (past int64)", f"{P}/guide.pdf/pages/1.png?highlight="
          "18446744073709551616", 422, "highlight"),
    _page("a chunk the document does not have", f"{P}/guide.pdf/highlight?chunk=987654321",
          404, "no chunk 987654321"),
    _page("the boxes route without ?chunk", f"{P}/guide.pdf/highlight", 422, "chunk"),
    _page("a document that is not there", f"{P}/nope.pdf/pages/1.png", 404,
          "no document 'nope.pdf'"),
    _page("an encoded ../ in the document id", f"{P}/%2E%2E/%2E%2E/etc/passwd/pages/1.png", 404,
          "no document"),
    _page("a Markdown document (no pages)", f"{P}/notes.md/pages/1.png", 422, "has no pages"),
    _page("an index that is not there", "/v1/indexes/nope/documents/a.pdf/pages/1.png", 404,
          "'nope'"),
    _page("a document of rows, not of a file (W/idx's copy)",
          "/v1/indexes/news/documents/nope/highlight?chunk=1", 404, "no document"),
    _page("the PDF changed since it was synced", f"{P}/guide.pdf/highlight?chunk={{CHUNK}}",
          409, "changed since it was indexed", change_file=True,
          note="never boxes at the old text's offsets: sync again"),
]


# -- the library ----------------------------------------------------------------------------
def _read_ocr(value):
    def fn(ws):
        from common.documents import read_file

        return read_file(ws.root / "show" / "good.md", "good.md", ocr=value)

    return fn


def _options(value):
    def fn(ws):
        from indexer import CorpusOptions

        return CorpusOptions(ocr=value)

    return fn


def _pages(fn_name: str, *args, index: str = "files"):
    def fn(ws):
        from indexer import SemanticIndex, pages

        where = _files_index(ws) if index == "files" else ws.root / "idx"
        opened = SemanticIndex.open(where, encoder=None)
        if index != "files":  # a document of W/idx and its first chunk
            doc = opened.doc_ids()[0]
            return getattr(pages, fn_name)(opened, doc, opened.chunk_spans(doc)[0][0])
        return getattr(pages, fn_name)(opened, *args)

    return fn


def _lib(bad: str, fn, *names, expect: str = "refused", note: str = "") -> Case:
    return Case(LIBRARY, bad, call(fn), expect, note, tuple(names))


LIB = [
    _lib("read_file(..., ocr='psychic')", _read_ocr("psychic"), "Invalid OCR mode", "auto"),
    _lib("read_file(..., ocr=None)", _read_ocr(None), "Invalid OCR mode"),
    _lib("CorpusOptions(ocr='OFF')", _options("OFF"), "Invalid ocr", "off"),
    _lib("pages.page_png(index, 'guide.pdf', 0)", _pages("page_png", "guide.pdf", 0),
         "numbered from 1"),
    _lib("pages.page_png(index, 'nope.pdf', 1)", _pages("page_png", "nope.pdf", 1),
         "no document"),
    _lib("pages.highlight(index, 'guide.pdf', -5)", _pages("highlight", "guide.pdf", -5),
         "no chunk -5"),
    _lib("pages.highlight on an index of rows (no files)", _pages("highlight", index="rows"),
         "not read from a file"),
]

CASES = [*CLI, *ROUTES, *LIB]
