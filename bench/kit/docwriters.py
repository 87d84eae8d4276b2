"""Real files made by real writers, for the reader tests and the ingest benches: PDFs by reportlab
(one passage a page, running header and footer, optional two columns and hyphenated line ends,
Chinese in the STSong-Light CID font reportlab ships), Word files by python-docx (one heading a
passage, a list and a table), web pages inside boilerplate (navigation, cookie banner, related
links, footer) and Markdown with front matter. Each takes passages: (heading, text) pairs.
Needs requirements-dev.txt (reportlab, python-docx). `passages`: SciFact abstracts to fill
them with, where the shared data is, else generated text."""

from __future__ import annotations

import html
import random
import textwrap
from collections.abc import Sequence
from pathlib import Path

Passage = tuple[str, str]  # (heading, text)

HEADER = "ACME Research Quarterly"
BOILERPLATE_WORDS = ("Subscribe", "cookies", "Related stories", "Copyright")  # what must go


def passages(n: int, seed: int = 0) -> list[Passage]:
    """(title, abstract) of SciFact documents, else generated ones."""
    from bench.kit import benchkit

    rnd = random.Random(seed)
    try:
        import json

        path = benchkit.data_dir() / "scifact" / "corpus.jsonl"
        rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[:4000]]
        rows = [r for r in rows if r.get("title") and 400 < len(r["text"]) < 2500]
        rnd.shuffle(rows)
        return [(r["title"][:90], " ".join(r["text"].split())) for r in rows[:n]]
    except SystemExit:
        words = "cells protein therapy patients levels increased reduced risk trial".split()
        return [(f"Passage {i}", " ".join(rnd.choice(words) for _ in range(200)) + ".")
                for i in range(n)]


def _wrap_words(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


def hyphenated(lines: list[str]) -> list[str]:
    """The lines with a long word broken across each line end, as typesetters do: a next line's
    first word of 8 or more letters moves its first half, with a hyphen, to the line before."""
    lines = list(lines)
    for n in range(len(lines) - 1):
        first, _, rest = lines[n + 1].partition(" ")
        if len(first) >= 8 and first.isalpha():
            cut = len(first) // 2
            lines[n] = f"{lines[n]} {first[:cut]}-"
            lines[n + 1] = first[cut:] + (" " + rest if rest else "")
    return lines


def write_pdf(path: Path, passages: Sequence[Passage], *, columns: int = 1,
              hyphenate: bool = False, chinese: bool = False, header: str = HEADER,
              title: str = "") -> list[int]:
    """One passage a page (a long one goes on over the next pages): a running header, the
    heading, the text (wrapped; in two columns drawn line by line across both, the order a
    naive extractor reads wrongly), a footer with the page number. Returns, for each page, the
    index of the passage it holds."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    font = "Helvetica"
    if chinese:
        from reportlab.pdfbase import pdfmetrics
        from reportlab.pdfbase.cidfonts import UnicodeCIDFont

        pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
        font = "STSong-Light"
    width, height = A4
    per_page = int((height - 146 - 60) / 14) * columns  # text lines a page holds
    c = canvas.Canvas(str(path), pagesize=A4)
    if title:
        c.setTitle(title)
    pages: list[int] = []
    for n, (heading, text) in enumerate(passages):
        if chinese:
            lines = [text[i:i + 38] for i in range(0, len(text), 38)]
        else:
            # room for the half word a hyphenated line end takes: columns never overlap
            lines = _wrap_words(text, 90 // columns - 4 * (columns - 1) - 10 * hyphenate)
        if hyphenate and not chinese:
            lines = hyphenated(lines)
        for at in range(0, len(lines), per_page):
            pages.append(n)
            c.setFont(font, 9)
            c.drawString(72, height - 40, header)
            c.drawString(width / 2 - 20, 30, f"Page {len(pages)}")
            top = height - 110
            if at == 0:  # the heading, wrapped to the page's width
                c.setFont(font, 14)
                for i, line in enumerate(_wrap_words(heading, 18 if chinese else 60)[:3]):
                    c.drawString(72, height - 80 - 18 * i, line)
                    top = height - 110 - 18 * i
            c.setFont(font, 10)
            _draw_lines(c, lines[at:at + per_page], columns, top, width)
            c.showPage()
    c.save()
    return pages


def _draw_lines(c, lines: list[str], columns: int, top: float, width: float) -> None:
    if columns == 1:
        for i, line in enumerate(lines):
            c.drawString(72, top - 14 * i, line)
        return
    half = (len(lines) + 1) // 2
    for i in range(half):  # drawn row by row, across both columns
        c.drawString(72, top - 14 * i, lines[i])
        if half + i < len(lines):
            c.drawString(width / 2 + 10, top - 14 * i, lines[half + i])


def write_docx(path: Path, passages: Sequence[Passage], *, title: str = "",
               extras: bool = False) -> Path:
    """A title heading, then one Heading 2 a passage with its text; `extras`: a bulleted list
    and a table after the first passage."""
    import docx

    d = docx.Document()
    if title:
        d.core_properties.title = title
        d.add_heading(title, level=1)
    for n, (heading, text) in enumerate(passages):
        d.add_heading(heading, level=2 if title else 1)
        d.add_paragraph(text)
        if extras and n == 0:
            d.add_paragraph("first listed point", style="List Bullet")
            d.add_paragraph("second listed point", style="List Bullet")
            table = d.add_table(rows=2, cols=2)
            for r, row in enumerate([("Sample", "Size"), ("Cohort A", "120")]):
                for col, value in enumerate(row):
                    table.cell(r, col).text = value
    d.save(str(path))
    return path


def html_page(passages: Sequence[Passage], *, title: str, charset: str = "utf-8",
              lang: str = "en") -> str:
    """A web page: navigation, a cookie banner, the article (h1 title, one h2 a passage), a
    related-links box and a footer."""
    body = "\n".join(f"<h2>{html.escape(h)}</h2>\n<p>{html.escape(t)}</p>" for h, t in passages)
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="{charset}"><title>{html.escape(title)}</title></head>
<body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>
<li><a href="/subscribe">Subscribe</a></li><li><a href="/about">About us</a></li></ul></nav>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience.
<button>Accept all cookies</button></div>
<main><article>
<h1>{html.escape(title)}</h1>
{body}
</article></main>
<aside class="related"><h3>Related stories</h3><ul>
<li><a href="/a">Ten things you missed this week</a></li>
<li><a href="/b">Why everyone is talking about gadgets</a></li></ul></aside>
<footer><p>Copyright 2024 Example Media. All rights reserved.</p>
<p><a href="/privacy">Privacy</a> | <a href="/terms">Terms</a></p></footer>
</body></html>"""


def write_html(path: Path, passages: Sequence[Passage], *, title: str,
               charset: str = "utf-8", lang: str = "en") -> Path:
    path.write_bytes(html_page(passages, title=title, charset=charset, lang=lang)
                     .encode(charset))
    return path


def write_markdown(path: Path, passages: Sequence[Passage], *, title: str = "",
                   front_matter: dict | None = None) -> Path:
    lines = []
    if front_matter:
        lines += ["---", *(f"{k}: {v}" for k, v in front_matter.items()), "---", ""]
    if title:
        lines += [f"# {title}", ""]
    for heading, text in passages:
        lines += [f"{'##' if title else '#'} {heading}", "", text, ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
