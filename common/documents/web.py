"""Web pages (.html, .htm): decoded by the charset the page declares (a byte-order mark, then
`<meta charset>` / `http-equiv`), the main content kept by trafilatura (navigation, cookie
banners, related-link boxes and footers dropped; chosen over readability-lxml by
bench/ingest_readers.py), its headings as sections; the title is the page's `<title>`."""

from __future__ import annotations

import codecs
import html
import re

from .records import Parsed, ReadError, Segment
from .sections import SectionPath, clean_heading, merged, without_anchors, without_empty_tail

FORMAT = "html"
_DECLARED = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.I | re.S)
# what browsers do with these labels (the WHATWG encoding standard): a superset decodes them
_SUPERSETS = {"gb2312": "gb18030", "gbk": "gb18030", "iso-8859-1": "cp1252", "latin-1": "cp1252",
              "ascii": "cp1252", "us-ascii": "cp1252", "big5": "big5hkscs"}


def declared_charset(data: bytes) -> str | None:
    """The page's charset: a byte-order mark, else the first `<meta ... charset=...>` in its
    first 4 KiB; None when it declares none (or one Python does not know)."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                      (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return name
    found = _DECLARED.search(data[:4096])
    if not found:
        return None
    label = found.group(1).decode("ascii", "replace").lower()
    try:
        name = codecs.lookup(_SUPERSETS.get(label, label)).name
    except LookupError:
        return None
    return _SUPERSETS.get(name, name)


def decode_page(data: bytes) -> str:
    """The page as text: by its declared charset, else UTF-8, else charset-normalizer's guess."""
    for charset in (declared_charset(data), "utf-8"):
        if charset:
            try:
                return data.decode(charset)
            except UnicodeDecodeError:
                continue
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise ReadError("no text in a known charset: is it a web page?")
    return str(best)


def read_html(data: bytes, *, favor_precision: bool = True) -> Parsed:
    """The page's main content as sections. `favor_precision` (trafilatura's): on a short page
    its default mode kept a cookie banner as content (bench/ingest_readers.py)."""
    import logging

    import trafilatura
    from lxml import etree

    logging.getLogger("trafilatura").setLevel(logging.ERROR)  # a page with no text: we say it

    if b"\x00" in data[:8192] and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ReadError("binary data, not a web page (NUL bytes): is the extension right?")
    page = decode_page(data)
    found = _TITLE.search(page)
    title = " ".join(found.group(1).split()) if found else ""
    title = html.unescape(title)
    xml = trafilatura.extract(page, output_format="xml", include_tables=True,
                              include_comments=False, with_metadata=False,
                              favor_precision=favor_precision)
    if not xml:
        raise ReadError("no main text found (an HTML page with no body, or only navigation?)")
    main = etree.fromstring(xml.encode("utf-8")).find("main")
    segments: list[Segment] = []
    path = SectionPath()
    for element in (main if main is not None else []):
        text = without_anchors(_text(element))  # Sphinx's "¶" after headings and captions
        if element.tag == "head":
            level = int((element.get("rend") or "h2").lstrip("h") or 2)
            text = clean_heading(text)
            path.enter(level, text)
        segments.append(Segment(text, section=path.text))
    segments = without_empty_tail(merged(segments))  # an orphan "Footnotes" ends no chunk
    if not segments:
        raise ReadError("no main text found (an HTML page with no body, or only navigation?)")
    return Parsed(FORMAT, segments, title)


def _text(element) -> str:
    """An element's text: a list one item a line ("- item"), a table one row a line (cells
    joined by " | "), anything else its words."""
    if element.tag == "list":
        return "\n".join("- " + " ".join("".join(item.itertext()).split())
                         for item in element.iter("item"))
    if element.tag == "table":
        return "\n".join(" | ".join(" ".join("".join(cell.itertext()).split())
                                    for cell in row.iter("cell"))
                         for row in element.iter("row"))
    return " ".join("".join(element.itertext()).split())
