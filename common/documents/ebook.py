"""EPUB e-books by ebooklib (bench/results/ingest_formats.md): the spine's documents in reading
order (the navigation document left out), each chapter's headings as sections (a chapter
without one takes its title from the table of contents), paragraphs, list items ("- item") and
table rows read in document order. The title is the book's Dublin Core title."""

from __future__ import annotations

import io
import logging
import warnings

from .records import Parsed, ReadError, Segment
from .sections import SectionPath, clean_heading, merged, without_anchors, without_empty_tail
from .zipped import check_zip

FORMAT = "epub"
BLOCKS = {"p", "li", "pre", "blockquote", "dt", "dd", "td", "th", "caption", "figcaption"}
HEADINGS = {f"h{n}": n for n in range(1, 7)}


def _toc_titles(toc) -> dict[str, str]:
    """{file name: title} from the table of contents (nested sections flattened)."""
    out: dict[str, str] = {}
    for entry in toc:
        if isinstance(entry, tuple):
            section, children = entry
            out.update(_toc_titles([section]))
            out.update(_toc_titles(children))
            continue
        href = getattr(entry, "href", "") or ""
        out.setdefault(href.split("#")[0], getattr(entry, "title", "") or "")
    return out


def _blocks(root):
    """(heading level or None, text) of the chapter's headings and text blocks, in order."""
    for element in root.iter():
        tag = element.tag.split("}")[-1].lower() if isinstance(element.tag, str) else ""
        if tag in HEADINGS:
            yield HEADINGS[tag], clean_heading("".join(element.itertext()))
        elif tag in BLOCKS:
            if any(isinstance(c.tag, str) and c.tag.split("}")[-1].lower() in BLOCKS
                   for c in element.iterdescendants()):
                continue  # a list item holding paragraphs: read by its paragraphs
            text = without_anchors(" ".join("".join(element.itertext()).split()))
            if text:
                yield None, ("- " + text if tag == "li" else text)


def read_epub(data: bytes) -> Parsed:
    from ebooklib import ITEM_DOCUMENT, ITEM_NAVIGATION, epub
    from lxml import html as lxml_html

    check_zip(data, "META-INF/container.xml", "EPUB e-book")
    logging.getLogger("ebooklib").setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": False})
    except Exception as exc:  # ebooklib raises EpubException, KeyError, lxml errors...
        raise ReadError(f"damaged EPUB e-book ({type(exc).__name__}: {str(exc)[:160]})") \
            from None
    titles = _toc_titles(book.toc)
    path = SectionPath()
    segments: list[Segment] = []
    for idref, _ in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() not in (ITEM_DOCUMENT,) or isinstance(
                item, epub.EpubNav) or item.get_type() == ITEM_NAVIGATION:
            continue
        try:
            root = lxml_html.fromstring(item.get_content())
        except Exception:  # an empty or broken chapter: nothing of it to read
            continue
        blocks = list(_blocks(root))
        if not any(level for level, _ in blocks):
            path.enter(1, titles.get(item.get_name(), ""))
        for level, text in blocks:
            if level is not None:
                path.enter(level, text)
            segments.append(Segment(text, section=path.text))
    segments = without_empty_tail(merged(segments))
    if not segments:
        raise ReadError("no text in its chapters (an e-book of images only?)")
    found = book.get_metadata("DC", "title")
    title = str(found[0][0]).strip() if found else ""
    return Parsed(FORMAT, segments, title)
