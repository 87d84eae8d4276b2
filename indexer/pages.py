"""A hit where it stands, from an index of either store: the boxes of chunk `chunk_id` on each
page it reaches (`highlight`), and a page drawn as a PNG with them marked (`page_png`). The
index keeps a document's text and layout, not its file: the file is read again from the folder
the index was made from (its manifest's `source`, or `root` given), confined to that folder, and
used only if its sha256 is the one the document was read with, so a changed file is never
highlighted with the offsets of its old text.

    boxes = highlight(index, "manuals/grfguide.pdf", hit.chunk_id)   # [PageBoxes, ...]
    png = page_png(index, "manuals/grfguide.pdf", 10, chunk_id=hit.chunk_id)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from common.documents import MAX_FILE_MB
from common.documents.highlight import (
    RENDER_SCALE,
    HighlightError,
    PageBoxes,
    page_boxes,
    passage_pages,
)
from common.documents.highlight import page_png as draw_page
from common.documents.records import ReadError

from .errors import IndexerError

MAX_PAGE = 100_000  # a page number past this is refused before any file is read


class PageError(IndexerError):
    """A page or highlight that cannot be drawn: the message says why and what to do."""


class NotFound(PageError):
    """No such document, chunk or page (an HTTP 404)."""


class FileChanged(PageError):
    """The document's file changed (or went) since it was indexed (an HTTP 409)."""


def documents_root(index, root: str | Path | None = None) -> Path:
    """Where the index's files are read from: `root`, else the folder it was made from."""
    given = root if root is not None else index.manifest.get("source", "")
    if not given or str(given).startswith("<"):
        raise PageError("the index records no folder of files (it was made from documents "
                        "given in code, or rows of a corpus): pages are drawn for documents "
                        "synced from a folder (python -m indexer sync FOLDER INDEX)")
    return Path(given).expanduser().resolve()


def original(index, doc, root: str | Path | None = None) -> bytes:
    """The bytes of `doc`'s file, read from the index's folder and checked against its sha256."""
    source, sha256 = doc.metadata.get("source"), doc.metadata.get("sha256")
    if not isinstance(source, str) or not isinstance(sha256, str):
        raise PageError(f"document {doc.id!r} was not read from a file: it has no pages")
    folder = documents_root(index, root)
    path = (folder / source).resolve()
    if not path.is_relative_to(folder):
        raise PageError(f"document {doc.id!r} names a file outside the index's folder: "
                        "refused")
    try:
        if path.stat().st_size > MAX_FILE_MB * 2**20:
            raise FileChanged(f"{source} is now larger than {MAX_FILE_MB} MB: it changed since "
                              "it was indexed; sync the index again")
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileChanged(f"{source} is no longer in the folder the index was made from: sync "
                          "the index again (or draw pages from a copy of that folder)") from None
    except OSError as exc:
        raise PageError(f"{source} cannot be read ({exc.strerror or exc})") from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise FileChanged(f"{source} changed since it was indexed (its sha256 differs): sync "
                          "the index again to highlight it")
    return data


def chunk_span(index, doc_id: str, chunk_id: int, readers: Iterable[str] | None = None
               ) -> tuple[int, int]:
    """(start, end) of chunk `chunk_id` in document `doc_id`'s text."""
    for cid, start, end in index.chunk_spans(doc_id, readers=readers):
        if cid == int(chunk_id):
            return start, end
    raise NotFound(f"document {doc_id!r} has no chunk {chunk_id} (the index changed since the "
                   "search? search again)")


def _no_pages(doc) -> str:
    kind = doc.metadata.get("format")
    if not kind or "sha256" not in doc.metadata:
        return f"document {doc.id!r} was not read from a file: it has no pages"
    return (f"document {doc.id!r} has no pages (a {kind} file): its hits show their section "
            "instead")


def _document(index, doc_id: str, readers: Iterable[str] | None = None):
    """Document `doc_id`; `NotFound` when absent or hidden from `readers` (the same words)."""
    doc = index.documents([doc_id], readers=readers).get(doc_id)
    if doc is None:
        raise NotFound(f"no document {doc_id!r} in the index")
    return doc


def highlight(index, doc_id: str, chunk_id: int, *, root: str | Path | None = None,
              readers: Iterable[str] | None = None) -> list[PageBoxes]:
    """The boxes of chunk `chunk_id` on its page and, where its sentence goes on over the
    page break, of the words that finish it on the next (`passage_pages`), in order. With
    `readers`, a document hidden from them is not found."""
    doc = _document(index, doc_id, readers)
    start, end = chunk_span(index, doc_id, chunk_id, readers)
    pieces = passage_pages(doc.metadata, doc.text, start, end)
    if not pieces:
        raise PageError(_no_pages(doc))
    data = original(index, doc, root)
    try:
        return [page_boxes(data, doc.metadata, doc.text, a, b, p) for p, a, b in pieces]
    except (HighlightError, ReadError) as exc:
        raise PageError(str(exc)) from None


def marked_pages(index, doc_id: str, chunk_id: int) -> list[int]:
    """The pages `highlight` marks chunk `chunk_id` on (no file read)."""
    doc = _document(index, doc_id)
    start, end = chunk_span(index, doc_id, chunk_id)
    return [p for p, _, _ in passage_pages(doc.metadata, doc.text, start, end)]


def page_png(index, doc_id: str, page: int, *, chunk_id: int | None = None,
             root: str | Path | None = None, scale: float = RENDER_SCALE,
             readers: Iterable[str] | None = None) -> bytes:
    """Page `page` (1-based) of document `doc_id` as a PNG; with `chunk_id`, that chunk's
    characters on it marked (none where it does not reach the page). With `readers`, a
    document hidden from them is not found."""
    if not 1 <= int(page) <= MAX_PAGE:
        raise NotFound(f"page {page}: pages are numbered from 1")
    doc = _document(index, doc_id, readers)
    if doc.metadata.get("format") not in ("pdf", "image"):
        raise PageError(_no_pages(doc))
    pages = doc.metadata.get("pages")
    if isinstance(pages, int) and page > pages:
        raise NotFound(f"document {doc_id!r} has {pages} pages, not {page}")
    boxes = []
    data = original(index, doc, root)
    try:
        if chunk_id is not None:
            start, end = chunk_span(index, doc_id, chunk_id, readers)
            for p, a, b in passage_pages(doc.metadata, doc.text, start, end):
                if p == page:
                    boxes = page_boxes(data, doc.metadata, doc.text, a, b, page).boxes
        return draw_page(data, doc.metadata, page, boxes, scale=scale)
    except (HighlightError, ReadError) as exc:
        raise PageError(str(exc)) from None
