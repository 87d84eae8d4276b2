"""Issue 52, class 3: readers that dropped text without a word. Word: nested tables, tracked
insertions (the current text; deletions stay out), content controls, text boxes (a document of
text boxes only was "empty"). PDF: filled form fields (a form-only PDF was "scanned"), and
pages with no text named in a note. Encodings: UTF-16 HTML, Markdown and text (were "binary"), a
page declaring the wrong charset (was "empty"). What a reader could not read is in the per-file
report line (`note FILE: ...`)."""

from __future__ import annotations

import copy

import pytest

from common.documents import read_file

pytest.importorskip("docx")
pytest.importorskip("reportlab")

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = (f'xmlns:w="{W}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
      'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
      'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
      'xmlns:v="urn:schemas-microsoft-com:vml"')


def _docx(tmp_path, *bodies: str, name: str = "d.docx"):
    """A .docx whose body holds python-docx's first paragraph and then each XML fragment."""
    import docx
    from lxml import etree

    d = docx.Document()
    d.add_paragraph("Opening paragraph.")
    body = d.element.body
    for xml in bodies:
        fragment = etree.fromstring(f"<root {NS}>{xml}</root>")
        for child in fragment:
            body.insert(len(body) - 1, copy.deepcopy(child))  # before w:sectPr
    path = tmp_path / name
    d.save(str(path))
    return path


def _p(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def _tbl(*rows: list[str]) -> str:
    return "<w:tbl>" + "".join("<w:tr>" + "".join(f"<w:tc>{c}</w:tc>" for c in row) + "</w:tr>"
                               for row in rows) + "</w:tbl>"


def test_word_nested_tables_are_read(tmp_path):
    inner = _tbl([_p("inner one"), _p("inner two")], [_p("inner three"), _p("inner four")])
    path = _docx(tmp_path, _tbl([_p("outer left"), _p("outer right") + inner]))
    text = read_file(path, "d.docx").text
    assert "outer left | outer right inner one | inner two / inner three | inner four" in text


def test_word_tracked_changes_read_as_the_current_text(tmp_path):
    changed = ("<w:p><w:r><w:t xml:space='preserve'>The dose was </w:t></w:r>"
               "<w:del w:id='1' w:author='a'><w:r><w:delText>ten</w:delText></w:r></w:del>"
               "<w:ins w:id='2' w:author='a'><w:r><w:t>twenty</w:t></w:r></w:ins>"
               "<w:r><w:t xml:space='preserve'> milligrams.</w:t></w:r></w:p>")
    text = read_file(_docx(tmp_path, changed), "d.docx").text
    assert "The dose was twenty milligrams." in text and "ten" not in text


def test_word_content_controls_block_and_inline_are_read(tmp_path):
    block = ("<w:sdt><w:sdtPr><w:alias w:val='Summary'/></w:sdtPr><w:sdtContent>"
             + _p("summary inside a control") + "</w:sdtContent></w:sdt>")
    inline = ("<w:p><w:r><w:t xml:space='preserve'>Patient: </w:t></w:r><w:sdt><w:sdtPr/>"
              "<w:sdtContent><w:r><w:t>Ada Lovelace</w:t></w:r></w:sdtContent></w:sdt></w:p>")
    text = read_file(_docx(tmp_path, block, inline), "d.docx").text
    assert "summary inside a control" in text and "Patient: Ada Lovelace" in text


def _text_box(text: str) -> str:
    """A text box as Word writes it: the drawing (mc:Choice) and a VML copy (mc:Fallback)."""
    return ("<w:p><w:r><mc:AlternateContent><mc:Choice Requires='wps'><w:drawing><a:graphic>"
            "<a:graphicData><wps:wsp><wps:txbx><w:txbxContent>" + _p(text) +
            "</w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic></w:drawing>"
            "</mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent>" + _p(text) +
            "</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>"
            "</mc:AlternateContent></w:r></w:p>")


def test_word_text_boxes_are_read_once(tmp_path):
    path = _docx(tmp_path, _text_box("words only in a text box"))
    text = read_file(path, "d.docx").text
    assert text.count("words only in a text box") == 1


def test_word_of_text_boxes_only_is_not_empty(tmp_path):
    import docx

    d = docx.Document()
    d.save(str(tmp_path / "blank.docx"))
    path = _docx(tmp_path, _text_box("the poster's only words"), name="boxes.docx")
    doc = docx.Document(str(path))
    first = doc.element.body[0]
    first.getparent().remove(first)  # the opening paragraph: only the text box is left
    doc.save(str(path))
    assert "the poster's only words" in read_file(path, "boxes.docx").text


def _form_pdf(path, *, with_text: bool, blank_page: bool = False):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    if with_text:
        c.drawString(72, 800, "Application for a library card")
    c.acroForm.textfield(name="full_name", tooltip="Full name", value="Ada Lovelace", x=72,
                         y=700, width=300, height=20)
    c.acroForm.textfield(name="empty_field", value="", x=72, y=650, width=300, height=20)
    c.acroForm.checkbox(name="member", checked=True, x=72, y=600)
    c.acroForm.checkbox(name="newsletter", checked=False, x=72, y=560)
    c.showPage()
    if blank_page:
        c.showPage()  # a page with nothing on it (a scan without OCR reads the same)
    c.save()
    return path


def test_pdf_filled_form_fields_join_their_page(tmp_path):
    doc = read_file(_form_pdf(tmp_path / "f.pdf", with_text=True), "f.pdf")
    assert doc.text.splitlines() == ["Application for a library card", "Full name: Ada Lovelace",
                                     "member: Yes"]


def test_a_form_only_pdf_is_read_not_called_scanned(tmp_path):
    doc = read_file(_form_pdf(tmp_path / "f.pdf", with_text=False), "f.pdf")
    assert "Full name: Ada Lovelace" in doc.text


def test_a_page_without_text_is_named_in_a_note(tmp_path):
    doc = read_file(_form_pdf(tmp_path / "f.pdf", with_text=True, blank_page=True), "f.pdf")
    assert doc.notes == ("page 2 of 2: no text layer and no image (blank?)",)


PAGE = ("<html><head><meta charset='{charset}'><title>Penguins</title></head><body><article>"
        "<h1>Penguins</h1><p>{text}</p></article></body></html>")
TEXT = ("Emperor penguins breed during the Antarctic winter, huddling together against "
        "temperatures far below freezing while the males incubate a single egg — café 企鹅.")


@pytest.mark.parametrize("name, data", [
    ("p.html", PAGE.format(charset="utf-16", text=TEXT).encode("utf-16")),
    ("p.html", PAGE.format(charset="utf-16", text=TEXT).encode("utf-16-le")),  # no BOM
    ("n.md", f"# Penguins\n\n{TEXT}\n".encode("utf-16")),
    ("n.md", f"# Penguins\n\n{TEXT}\n".encode("utf-16-be")),
    ("n.txt", f"{TEXT}\n".encode("utf-16-le")),
    ("n.txt", f"{TEXT}\n".encode("utf-32")),
])
def test_utf16_and_utf32_files_are_text_not_binary(tmp_path, name, data):
    (tmp_path / name).write_bytes(data)
    assert TEXT in read_file(tmp_path / name, name).text


@pytest.mark.parametrize("declared", ["utf-16", "shift_jis", "iso-8859-1"])
@pytest.mark.parametrize("pad", ["", " "])  # an even byte count decodes as UTF-16 (garbage)
def test_a_page_declaring_the_wrong_charset_is_read_by_its_bytes(tmp_path, declared, pad):
    page = PAGE.format(charset=declared, text=TEXT).encode("utf-8") + pad.encode()
    (tmp_path / "p.html").write_bytes(page)
    doc = read_file(tmp_path / "p.html", "p.html")
    assert TEXT in doc.text
    assert any("its bytes are UTF-8" in n for n in doc.notes) or declared == "utf-16"


def test_a_page_in_its_declared_charset_is_read_by_it(tmp_path):
    page = PAGE.format(charset="windows-1252", text=TEXT.replace(" 企鹅", ""))
    (tmp_path / "p.html").write_bytes(page.encode("cp1252"))
    doc = read_file(tmp_path / "p.html", "p.html")
    assert "café" in doc.text and doc.notes == ()


@pytest.mark.parametrize("store", ["folder", "milvus"])
def test_what_a_reader_could_not_read_is_in_the_per_file_line(tmp_path, tiny_encoder, store):
    from indexer import ChunkingConfig
    from indexer.sync import sync_folder

    if store == "milvus":
        pytest.importorskip("milvus_lite")
        target = f"milvus://{tmp_path}/r.db?collection=readers"
    else:
        target = str(tmp_path / "idx")
    docs = tmp_path / "docs"
    docs.mkdir()
    _form_pdf(docs / "form.pdf", with_text=True, blank_page=True)
    (docs / "n.txt").write_bytes(f"{TEXT}\n".encode("utf-16-le"))
    report = sync_folder(docs, target, model=tiny_encoder,
                         chunking=ChunkingConfig(chunk_tokens=64, overlap=8))
    assert sorted(report.added) == ["form.pdf", "n.txt"] and report.failed == []
    lines = report.lines()
    assert "note form.pdf: page 2 of 2: no text layer and no image (blank?)" in lines
    assert any(x.startswith("note n.txt: read as UTF-16-LE") for x in lines)
