"""Web pages (.html, .htm): decoded by their bytes and the charset they declare (`decode_page`:
a byte-order mark or UTF-16's zero bytes, UTF-8, `<meta charset>` / `http-equiv`), the main
content kept by trafilatura (navigation, cookie banners, related-link boxes and footers dropped;
chosen over readability-lxml by bench/ingest_readers.py), its headings as sections; the title is
the page's `<title>`."""

from __future__ import annotations

import codecs
import html
import re

from .records import Parsed, ReadError, Segment
from .sections import SectionPath, clean_heading, merged, without_anchors, without_empty_tail
from .text import decoded, unicode_charset

FORMAT = "html"
_DECLARED = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.I | re.S)
# what browsers do with these labels (the WHATWG encoding standard): a superset decodes them
_SUPERSETS = {"gb2312": "gb18030", "gbk": "gb18030", "iso-8859-1": "cp1252", "latin-1": "cp1252",
              "ascii": "cp1252", "us-ascii": "cp1252", "big5": "big5hkscs"}


def declared_charset(data: bytes) -> str | None:
    """The charset the first `<meta ... charset=...>` in the page's first 4 KiB names; None when
    it declares none (or one Python does not know). As browsers do (WHATWG), a page read as
    bytes that declares UTF-16 or UTF-32 is read as UTF-8 (a UTF-16 page says so by its bytes)."""
    found = _DECLARED.search(data[:4096])
    if not found:
        return None
    label = found.group(1).decode("ascii", "replace").lower()
    try:
        name = codecs.lookup(_SUPERSETS.get(label, label)).name
    except LookupError:
        return None
    if name.startswith(("utf-16", "utf-32")):
        return "utf-8"
    return _SUPERSETS.get(name, name)


def decode_page(data: bytes) -> tuple[str, tuple[str, ...]]:
    """(the page as text, notes on how it was read): UTF-16/32 by its bytes (`unicode_charset`);
    else UTF-8 where its bytes are UTF-8 (a page whose non-ASCII bytes all form UTF-8 is UTF-8,
    whatever it declares: the declaration is the likelier mistake); else the declared charset;
    else charset-normalizer's guess, said in a note."""
    unicode = unicode_charset(data)
    if unicode is not None:
        text, notes = decoded(data)
        return text, notes
    declared = declared_charset(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        wrong = declared not in (None, "utf-8", "utf-8-sig") and not data.isascii()
        return text, ((f"it declares charset {declared} but its bytes are UTF-8: read as "
                       "UTF-8",) if wrong else ())
    if declared:
        try:
            return data.decode(declared), ()
        except UnicodeDecodeError:
            pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise ReadError("no text in a known charset: is it a web page?")
    said = f"declares {declared} but is not" if declared else "declares no charset and is not"
    return str(best), (f"it {said} UTF-8: read as {best.encoding} (a guess; save it as UTF-8 "
                       "to be sure)",)


def read_html(data: bytes, *, favor_precision: bool = True) -> Parsed:
    """The page's main content as sections. `favor_precision` (trafilatura's): on a short page
    its default mode kept a cookie banner as content (bench/ingest_readers.py)."""
    import logging

    import trafilatura
    from lxml import etree

    logging.getLogger("trafilatura").setLevel(logging.ERROR)  # a page with no text: we say it

    if b"\x00" in data[:8192] and unicode_charset(data) is None:
        raise ReadError("binary data, not a web page (NUL bytes): is the extension right?")
    page, notes = decode_page(data)
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
    return Parsed(FORMAT, segments, title, notes=notes)


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
