"""Fourth-round bad input to a user's documents (issue 52, classes 1, 2, 3 and 9): files whose
text a reader dropped (Word's nested tables, tracked insertions, content controls and text
boxes; PDF form fields; UTF-16 and wrongly declared charsets), front matter that recoded or
exploded (YAML 1.1, alias joins, TOML, a 70 kB block), folders with odd names and depth, and
sync meeting documents it did not write. A `read_file` row that reads the wrong text raises an
AssertionError, which marks it."""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from .probe import Case, Outcome, call, cli

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


# -- sync: what it did not write, odd folders -------------------------------------------------
def _synced(prepare: Callable, *, clean: Callable | None = None, extra: tuple = ()
            ) -> Callable[..., Outcome]:
    """`python -m indexer sync FOLDER W/sync4/NAME` on the folder `prepare(ws)` returns (an
    index it prepares beside it, when it returns (folder, index))."""

    def run(ws) -> Outcome:
        made_by = prepare(ws)
        folder, target = made_by if isinstance(made_by, tuple) else (made_by, None)
        target = target or ws.root / "sync4" / f"{folder.name}-idx"
        try:
            return cli("indexer", "sync", str(folder), str(target), "--model", "minilm",
                       *extra)(ws)
        finally:
            if clean is not None:
                clean(ws)

    return run


def _mixed(ws):
    """An index of a crawler's rows (their own source URL and sha256, as an index built before
    reserved names were refused holds them) and a corpus row named like a file, and a folder
    holding that file and another."""
    from common.documents import FileDocument
    from indexer import build_index

    from .cases_library import shared_minilm

    folder = ws.root / "sync4" / "mixed-docs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.md").write_text(f"# Notes\n\n{BODY}\n")
    (folder / "other.md").write_text("# Other\n\nRain is expected tomorrow.\n")
    target = ws.root / "sync4" / "mixed-idx"
    if not target.exists():
        rows = [FileDocument(f"page{i}", f"crawled page {i} about rivers", "",
                             {"source": f"https://example.org/{i}", "sha256": "ab" * 32})
                for i in range(2)]
        build_index([*rows, {"id": "notes.md", "text": "a corpus row named like a file"}],
                    target, model=shared_minilm(), preset="flat")
    return folder, target


def _odd_names(ws):
    folder = ws.root / "sync4" / "odd-names"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "good.md").write_text(f"# Good\n\n{BODY}\n")
    fd = os.open(os.fsencode(folder) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY)
    os.write(fd, b"# Cafe\n\nlatin-1 name\n")
    os.close(fd)
    return folder


def _deep(ws):
    folder = ws.root / "sync4" / "deep"
    deep = folder
    folder.mkdir(parents=True, exist_ok=True)
    for _ in range(1000):
        deep = deep / "d"
        deep.mkdir(exist_ok=True)
    (deep / "bottom.md").write_text(f"# Bottom\n\n{BODY}\n")
    return folder


def _undeep(ws):
    """Remove W/sync4/deep bottom up (shutil.rmtree, the workspace's clean-up, recurses)."""
    deep = ws.root / "sync4" / "deep"
    while (deep / "d").is_dir():
        deep = deep / "d"
    (deep / "bottom.md").unlink(missing_ok=True)
    while deep != ws.root / "sync4":
        deep.rmdir()
        deep = deep.parent


def _specials(ws):
    folder = ws.root / "sync4" / "specials"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fine.md").write_text(f"# Fine\n\n{BODY}\n")
    if not (folder / "pipe.md").exists():
        os.mkfifo(folder / "pipe.md")
        (folder / "to-pipe.md").symlink_to(folder / "pipe.md")
        (folder / "null.txt").symlink_to("/dev/null")
    return folder


def _readers(ws):
    """A folder of the made Word files, PDFs and odd encodings."""
    folder = ws.root / "sync4" / "readers"
    if not folder.exists():
        shutil.copytree(made(ws), folder)
        for rel in ("enc/nobom.md", "enc/utf16.txt", "enc/says-utf16.html"):
            shutil.copy(ws.root / "r4" / rel, folder / Path(rel).name)
    return folder


def sync_cases() -> list[Case]:
    entry = "python -m indexer sync"

    def row(bad, run, names, note=""):
        return Case(entry, bad, run, 0, note, names)

    return [
        row("a folder into an index holding a crawler's rows and a corpus row named like a "
            "file", _synced(_mixed), ("not read from files",),
            note="the crawler's rows kept (they were 'removed 2'); notes.md not synced over "
                 "the corpus row (it was replaced and counted 'added'); the report says so"),
        row("a folder holding a file whose name is not UTF-8", _synced(_odd_names),
            ("added 1",), note="that file is one line, shown with \\x escapes (the whole first "
                               "sync failed, naming no file)"),
        row("a folder nested 1,000 deep", _synced(_deep, clean=_undeep), ("added 1",),
            note="walked with a stack ('maximum recursion depth exceeded' before)"),
        row("a folder with a named pipe, a link to it and a link to /dev/null",
            _synced(_specials), ("added 1",),
            note="each named as a pipe or device and never opened (they were 'broken')"),
        row("a folder of Word files with nested tables, tracked changes, controls, text "
            "boxes; form PDFs; UTF-16 files", _synced(_readers), ("added 10",),
            note="every file read; a page without text and a guessed encoding noted"),
    ]


# -- training: adapt, a dev split --------------------------------------------------------------
def _relative_index(ws):
    from training.adapt_source import index_documents

    scratch = ws.root / "adapt-scratch"
    scratch.mkdir(exist_ok=True)
    source = index_documents("idx", scratch)  # the probe runs in W: W/idx, not the checkout's
    assert len(source.documents) == 6, source.description
    return source.description


def _headings(ws):
    from indexer import build_index
    from training.adapt_pairs import make_pairs
    from training.adapt_source import index_documents

    from .cases_library import shared_minilm

    folder = ws.root / "adapt-docs"
    folder.mkdir(exist_ok=True)
    (folder / "guide.md").write_text("# Guide\n\n## Installing on Linux\n\nRun the installer "
                                     "with sudo and reboot.\n\n## Removing the app\n\nDelete "
                                     "the folder and clear the cache.\n")
    target = ws.root / "adapt-docs-idx"
    if not target.exists():
        build_index(str(folder), target, model=shared_minilm(), preset="flat")
    scratch = ws.root / "adapt-scratch2"
    scratch.mkdir(exist_ok=True)
    pairs = make_pairs(index_documents(target, scratch).documents, ["heading"])
    assert sorted(p.anchor for p in pairs) == ["Installing on Linux", "Removing the app"], pairs
    return [(p.anchor, p.positive[:30]) for p in pairs]


def _repeating(ws, groups: bool):
    from training.run_plan import dev_split_sizes

    if groups:  # connected groups of 50, 5, 3 and 2 pairs
        rows = [{"sentence1": f"{g}{i % n}", "sentence2": f"{g}{(i + 1) % n}", "score": 1}
                for g, size, n in (("a", 50, 10), ("b", 5, 5), ("c", 3, 3), ("d", 2, 2))
                for i in range(size)]
    else:  # 60 pairs over 20 sentences: one connected group
        rows = [{"sentence1": f"s{i % 20}", "sentence2": f"s{(i + 3) % 20}", "score": i % 5}
                for i in range(60)]
    path = ws.root / f"repeating-{groups}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return dev_split_sizes(path, 12, cache=ws.root / "split-cache")


def training_cases() -> list[Case]:
    lib = "training library"
    adapt = "python -m training adapt"
    version = "{W}/idx/v000001"  # a folder inside the index (its version folders' parent)

    def adapting(bad, *argv, names=(), note=""):
        return Case(adapt, bad, cli("training", "adapt", "--index", "{W}/idx", *argv,
                                    "--no-progress"), 2, note, names)

    return [
        Case(lib, "index_documents('idx') (relative) from another directory",
             call(_relative_index), "accepted",
             "the caller's W/idx (the export ran in the checkout and read its index)"),
        Case(lib, "adapt pairs of a Markdown folder's index (headings only in its layout)",
             call(_headings), "accepted",
             "heading pairs from the sections the readers record (none before)"),
        Case(lib, "dev_split_sizes of 60 pairs over 20 repeated sentences",
             call(lambda ws: _repeating(ws, groups=False)), names=("connected group",),
             note="refused before training (the run failed 18 s in: 'train.jsonl: no rows')"),
        Case(lib, "dev_split_sizes where one group holds 50 of 60 pairs",
             call(lambda ws: _repeating(ws, groups=True)), "accepted",
             "(50, 10): training keeps its rows"),
        adapting("--lr 1e9 (diverges)", "--out", "{W}/runs/adapt-nan", "--lr", "1e9",
                 "--batch-size", "2", "--max-length", "32", names=("diverged", "--lr"),
                 note="nothing saved (it saved a NaN model and exited 0)"),
        adapting("--out inside the index folder", "--out", f"{version}/adapted",
                 names=("inside the index",), note="an index write would delete the model"),
        adapting("--out the index folder itself", "--out", "{W}/idx",
                 names=("inside the index",)),
    ]


def nan_model_cases() -> list[Case]:
    def build_with_nan(ws):
        import torch
        from sentence_transformers import SentenceTransformer

        from encoder import load_encoder
        from indexer import build_index

        folder = ws.root / "nan-model"
        if not folder.exists():
            shutil.copytree(load_encoder("minilm").info.path, folder)
            model = SentenceTransformer(str(folder), device="cpu")
            with torch.no_grad():
                next(model.parameters()).fill_(float("nan"))
            model.save(str(folder))
        return build_index(ws.root / "corpus.jsonl", ws.root / "nan-idx",
                           model=load_encoder(folder, backend="torch"), preset="flat")

    return [Case("indexer library", "build_index() with a model whose outputs are NaN",
                 call(build_with_nan), names=("not finite numbers", "nothing was indexed"),
                 note="a diverged fine-tune's vectors were published")]
