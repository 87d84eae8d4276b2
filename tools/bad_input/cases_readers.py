"""Fourth-round bad input to a user's documents (issue 52, classes 1, 2, 3 and 9): files whose
text a reader dropped (Word's nested tables, tracked insertions, content controls and text
boxes; PDF form fields; UTF-16 and wrongly declared charsets), front matter that recoded or
exploded (YAML 1.1, alias joins, TOML, a 70 kB block), folders with odd names and depth, and
sync meeting documents it did not write. A `read_file` row that reads the wrong text raises an
AssertionError, which marks it."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

from .probe import Case, call

BODY = "Emperor penguins huddle in winter."
ALIAS = "a: &a " + "x" * 1000 + "\nb: [" + ", ".join(["*a"] * 100) + "]\ntitle: Kept\n"
FILES: dict[str, str | bytes] = {
    "r4/front/yaml11.md": "---\ncountry: NO\nzip: 01234\nversion: 1.10\nlight: on\nn: 42\n"
                          f"---\n{BODY}\n",
    "r4/front/alias.md": f"---\n{ALIAS}---\n{BODY}\n",
    "r4/front/aliases.md": "---\na: &a [x]\n" + "".join(f"k{i}: *a\n" for i in range(101))
                           + f"---\n{BODY}\n",
    "r4/front/hugo.md": '+++\ntitle = "Hugo post"\ndate = 2024-01-05T10:00:00Z\n'
                        f'tags = ["birds", "cold"]\n[params]\nhero = "a.png"\n+++\n{BODY}\n',
    "r4/front/json.md": '{\n  "title": "Json post",\n  "zip": "01234"\n}\n\n' + BODY + "\n",
    "r4/front/jekyll.md": "---\nlayout: post\ntitle: \"Welcome\"\ndate: 2024-01-05 10:00:00 "
                          f"+0100\ncategories: [news, site]\n---\n{BODY}\n",
    "r4/front/obsidian.md": "---\ntags:\n  - project\n  - idea\naliases: [Plan B]\n"
                            f"created: 2023-01-01T10:00\n---\n# Plan\n\n{BODY}\n",
    "r4/front/huge.md": "---\n" + "".join(f"k{i}: {'v' * 60}\n" for i in range(1100))
                        + f"---\n{BODY}\n",
    "r4/front/break.md": f"---\nnot closed\n\n# Title\n\n{BODY}\n",
    "r4/enc/bom.html": f"<html><head><meta charset='utf-16'><title>P</title></head><body>"
                       f"<article><h1>P</h1><p>{BODY * 4}</p></article></body></html>"
                       .encode("utf-16"),
    "r4/enc/nobom.md": f"# Penguins\n\n{BODY}\n".encode("utf-16-le"),
    "r4/enc/utf16.txt": f"{BODY}\n".encode("utf-16"),
    "r4/enc/utf32.txt": f"{BODY}\n".encode("utf-32"),
    "r4/enc/says-utf16.html": (f"<html><head><meta charset='utf-16'><title>P</title></head>"
                               f"<body><article><h1>P</h1><p>{BODY * 4} café</p></article>"
                               "</body></html> ").encode(),
    "r4/enc/says-sjis.html": (f"<html><head><meta charset='shift_jis'><title>P</title></head>"
                              f"<body><article><h1>P</h1><p>{BODY * 4} café</p></article>"
                              "</body></html>").encode(),
}
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = (f'xmlns:w="{W_NS}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
      ' xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"'
      ' xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"'
      ' xmlns:v="urn:schemas-microsoft-com:vml"')


def _p(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def _tbl(*rows) -> str:
    return "<w:tbl>" + "".join("<w:tr>" + "".join(f"<w:tc>{c}</w:tc>" for c in row) + "</w:tr>"
                               for row in rows) + "</w:tbl>"


WORD = {
    "nested.docx": _tbl([_p("outer left"), _p("outer right") + _tbl([_p("inner one"),
                                                                      _p("inner two")])]),
    "tracked.docx": ("<w:p><w:r><w:t xml:space='preserve'>The dose was </w:t></w:r><w:del "
                     "w:id='1' w:author='a'><w:r><w:delText>ten</w:delText></w:r></w:del><w:ins "
                     "w:id='2' w:author='a'><w:r><w:t>twenty</w:t></w:r></w:ins><w:r><w:t "
                     "xml:space='preserve'> milligrams.</w:t></w:r></w:p>"),
    "controls.docx": ("<w:sdt><w:sdtPr/><w:sdtContent>" + _p("summary inside a control")
                      + "</w:sdtContent></w:sdt>"),
    "boxes.docx": ("<w:p><w:r><mc:AlternateContent><mc:Choice Requires='wps'><w:drawing>"
                   "<a:graphic><a:graphicData><wps:wsp><wps:txbx><w:txbxContent>"
                   + _p("the poster's only words") + "</w:txbxContent></wps:txbx></wps:wsp>"
                   "</a:graphicData></a:graphic></w:drawing></mc:Choice><mc:Fallback><w:pict>"
                   "<v:shape><v:textbox><w:txbxContent>" + _p("the poster's only words")
                   + "</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>"
                   "</mc:AlternateContent></w:r></w:p>"),
}


def _docx(path: Path, xml: str, *, only: bool) -> None:
    """A .docx holding `xml` in its body (`only`: nothing else)."""
    import docx
    from lxml import etree

    d = docx.Document()
    if not only:
        d.add_paragraph("Opening paragraph.")
    body = d.element.body
    for child in etree.fromstring(f"<root {NS}>{xml}</root>"):
        body.insert(len(body) - 1, copy.deepcopy(child))
    d.save(str(path))


def _form_pdf(path: Path, *, text: bool, blank_page: bool = False) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    if text:
        c.drawString(72, 800, "Application for a library card")
    c.acroForm.textfield(name="full_name", tooltip="Full name", value="Ada Lovelace", x=72,
                         y=700, width=300, height=20)
    c.acroForm.checkbox(name="member", checked=True, x=72, y=600)
    c.showPage()
    if blank_page:
        c.showPage()
    c.save()


def made(ws) -> Path:
    """W/r4/made: the Word files and PDFs above, written once (they need their writers)."""
    folder = ws.root / "r4" / "made"
    if not folder.exists():
        folder.mkdir(parents=True)
        for name, xml in WORD.items():
            _docx(folder / name, xml, only=name == "boxes.docx")
        _form_pdf(folder / "form.pdf", text=True)
        _form_pdf(folder / "form-only.pdf", text=False)
        _form_pdf(folder / "blank-page.pdf", text=True, blank_page=True)
    return folder


def _read(rel: str, *expected: str, absent: tuple[str, ...] = (), metadata: dict | None = None,
          note: str = "") -> Callable:
    """`read_file` of W/`rel` (or of a made file, "made/NAME"): its text holds `expected`, none
    of `absent`; its metadata holds `metadata`; a note holds `note`. Returns what was read."""

    def fn(ws):
        from common.documents import read_file

        path = made(ws) / rel[5:] if rel.startswith("made/") else ws.root / "r4" / rel
        doc = read_file(path, path.name)
        for word in expected:
            assert word in doc.text, f"{word!r} not read: {doc.text[:200]!r}"
        for word in absent:
            assert word not in doc.text, f"{word!r} read: {doc.text[:200]!r}"
        for key, value in (metadata or {}).items():
            assert doc.metadata.get(key) == value, f"{key}: {doc.metadata.get(key)!r}"
        if note:
            assert any(note in n for n in doc.notes), f"no note {note!r}: {doc.notes}"
        kept = {k: v for k, v in doc.metadata.items() if k not in ("source", "format", "sha256",
                                                                    "modified", "bytes",
                                                                    "_layout")}
        return f"text {len(doc.text)} chars; {kept}" + (f"; notes: {list(doc.notes)}"
                                                         if doc.notes else "")

    return fn


def library_cases() -> list[Case]:
    entry = "indexer library"

    def read(bad, fn, expect="accepted", note=""):
        return Case(entry, f"read_file() of {bad}", call(fn), expect, note)

    from common.documents.front_matter import MAX_VALUE_CHARS

    return [
        read("a Word file with a table nested in a table cell", _read(
            "made/nested.docx", "outer right inner one | inner two"),
             note="the nested table's text in its cell (it was dropped)"),
        read("a Word file with tracked changes", _read(
            "made/tracked.docx", "The dose was twenty milligrams.", absent=("ten",)),
             note="the current text: insertions in, deletions out"),
        read("a Word file with text in a content control", _read(
            "made/controls.docx", "summary inside a control")),
        read("a Word file whose only text is in a text box", _read(
            "made/boxes.docx", "the poster's only words"),
             note="read once (Word keeps a drawing and a VML copy); it was called empty"),
        read("a PDF with filled form fields", _read(
            "made/form.pdf", "Full name: Ada Lovelace", "member: Yes")),
        read("a PDF of form fields only (no text layer)", _read(
            "made/form-only.pdf", "Full name: Ada Lovelace"), note="it was called scanned"),
        read("a PDF with a page without text", _read(
            "made/blank-page.pdf", note="page 2 of 2: no text layer"),
             note="the page named in a note"),
        read("UTF-16 HTML with a BOM", _read("enc/bom.html", BODY)),
        read("UTF-16 Markdown without a BOM", _read("enc/nobom.md", BODY,
                                                     note="read as UTF-16-LE"),
             note="it was called binary"),
        read("UTF-16 text", _read("enc/utf16.txt", BODY)),
        read("UTF-32 text", _read("enc/utf32.txt", BODY)),
        read("a UTF-8 page declaring charset utf-16", _read("enc/says-utf16.html", "café")),
        read("a UTF-8 page declaring charset shift_jis", _read(
            "enc/says-sjis.html", "café", note="its bytes are UTF-8")),
        read("YAML 1.1 traps in front matter (NO, 01234, 1.10, on)", _read(
            "front/yaml11.md", metadata={"country": "NO", "zip": "01234", "version": "1.10",
                                         "light": "on", "n": 42}),
             note="typed as written (1.1 made them false, 668, 1.1, true)"),
        read("front matter whose alias join would make 100 kB", _read(
            "front/alias.md", metadata={"title": None, "b": None},
            note=f"over {MAX_VALUE_CHARS:,}"),
             note="the field left out with a note (it made a 100 MB field)"),
        read("front matter with 101 aliases", _read(
            "front/aliases.md", BODY, note="more than 100 YAML aliases")),
        read("Hugo TOML (+++) front matter", _read(
            "front/hugo.md", absent=("title =",), metadata={
                "tags": "birds, cold", "date": "2024-01-05T10:00:00+00:00"},
            note="'params'"), note="parsed (it was indexed as text); a table noted"),
        read("Hugo JSON front matter", _read("front/json.md", metadata={"zip": "01234"},
                                             absent=('"title"',))),
        read("Jekyll front matter", _read("front/jekyll.md", metadata={
            "layout": "post", "date": "2024-01-05 10:00:00 +0100",
            "categories": "news, site"})),
        read("Obsidian front matter (tag list, aliases)", _read("front/obsidian.md", metadata={
            "tags": "project, idea", "aliases": "Plan B", "created": "2023-01-01T10:00"})),
        read("a 70 kB front matter block", _read("front/huge.md", BODY,
                                                  note="its front matter is"),
             note="left out with a note; the body read"),
        read("a '---' line never closed (a thematic break)", _read("front/break.md", BODY)),
    ]
