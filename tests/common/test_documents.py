"""common.documents on real files made by real writers (bench/kit/docwriters.py: reportlab,
python-docx): text, pages and sections, hyphenation rejoined, running headers and footers
dropped, two columns in order, web boilerplate dropped, Chinese read whole, front matter as
metadata, and each way a file fails as one line."""

from __future__ import annotations

import os
import zipfile

import pytest

from bench.kit.docwriters import (
    BOILERPLATE_WORDS,
    HEADER,
    write_docx,
    write_html,
    write_markdown,
    write_pdf,
)
from common.documents import (
    LAYOUT_KEY,
    ReadError,
    chunk_metadata,
    citation,
    matches,
    place_at,
    read_file,
    read_folder,
)

pytest.importorskip("reportlab")
pytest.importorskip("docx")

PASSAGES = [
    ("Statins and the heart", "Statin therapy reduces cardiovascular events in patients with "
     "established coronary disease, according to several randomised controlled trials "
     "conducted between 1994 and 2004. The effect depended on baseline cholesterol and on "
     "adherence to the prescribed regimen over the whole follow-up period."),
    ("Oil prices", "Rising oil prices in Europe pushed inflation above the central bank target "
     "while manufacturing output slowed considerably across the eurozone economies during "
     "the second quarter, and households postponed their purchases."),
    ("Penguins", "Emperor penguins breed during the Antarctic winter, huddling together against "
     "temperatures far below freezing while the males incubate a single egg on their feet."),
]
CHINESE = ("苹果好吃。苹果发布会在加州举行！自然语言处理是人工智能的一个分支；深度学习模型，"
           "例如BERT和GPT，改变了这个领域。北京、上海和广州的研究人员也参与其中。")


def words(text: str) -> list[str]:
    return text.split()


def test_pdf_pages_hyphenation_headers_and_columns(tmp_path):
    for columns in (1, 2):
        path = tmp_path / f"r{columns}.pdf"
        write_pdf(path, PASSAGES, columns=columns, hyphenate=True, title="Annual report 2023")
        doc = read_file(path, f"reports/r{columns}.pdf")
        assert doc.id == doc.metadata["source"] == f"reports/r{columns}.pdf"
        assert doc.title == "Annual report 2023" and doc.metadata["format"] == "pdf"
        assert doc.metadata["pages"] == 3 and len(doc.metadata["sha256"]) == 64
        spans = doc.metadata[LAYOUT_KEY]["spans"]
        assert [page for _, _, page, _ in spans] == [1, 2, 3]
        for (start, end, page, _), (heading, text) in zip(spans, PASSAGES, strict=True):
            # every word, in order, none broken by a hyphen, no header or footer
            assert words(doc.text[start:end]) == words(heading) + words(text), (columns, page)
            # no outline: the 14-point heading over 10-point text is found by its font
            assert place_at(doc.metadata, start) == {"page": page, "section": heading}
        assert HEADER not in doc.text and "Page 2" not in doc.text


def test_chinese_pdf_and_web_page_lose_no_character(tmp_path):
    write_pdf(tmp_path / "zh.pdf", [("第一章", CHINESE), ("第二章", CHINESE)], chinese=True)
    pdf = read_file(tmp_path / "zh.pdf", "zh.pdf")
    spans = pdf.metadata[LAYOUT_KEY]["spans"]
    assert [pdf.text[a:b] for a, b, _, _ in spans] == ["第一章\n" + CHINESE, "第二章\n" + CHINESE]
    for charset in ("utf-8", "gb2312"):  # the charset the page declares decodes it
        page = write_html(tmp_path / f"zh-{charset}.html", [("苹果", CHINESE), ("香蕉", CHINESE)],
                          title="中文网页", charset=charset, lang="zh")
        doc = read_file(page, page.name)
        assert doc.title == "中文网页" and CHINESE in doc.text
        assert doc.text.count(CHINESE) == 2 and "cookies" not in doc.text
        at = doc.text.index("香蕉")
        assert place_at(doc.metadata, at) == {"section": "中文网页 > 香蕉"}


def test_web_page_keeps_the_article_and_drops_the_boilerplate(tmp_path):
    doc = read_file(write_html(tmp_path / "p.html", PASSAGES, title="Health & money"),
                    "news/p.html")
    assert doc.title == "Health & money" and doc.metadata["format"] == "html"
    for word in BOILERPLATE_WORDS:
        assert word not in doc.text
    for heading, text in PASSAGES:
        at = doc.text.index(text)
        assert place_at(doc.metadata, at) == {"section": f"Health & money > {heading}"}


def test_word_headings_lists_and_tables(tmp_path):
    doc = read_file(write_docx(tmp_path / "w.docx", PASSAGES, title="Report", extras=True),
                    "w.docx")
    assert doc.title == "Report" and doc.metadata["format"] == "docx"
    first = doc.text.index(PASSAGES[0][1])
    assert place_at(doc.metadata, first) == {"section": "Report > Statins and the heart"}
    assert "- first listed point\n- second listed point" in doc.text
    assert "Sample | Size\nCohort A | 120" in doc.text
    assert place_at(doc.metadata, doc.text.index("Cohort A"))["section"].endswith("heart")


def test_markdown_front_matter_and_sections(tmp_path):
    path = write_markdown(tmp_path / "n.md", PASSAGES, title="Notes",
                          front_matter={"author": "Ann", "tags": "[cats, dogs]",
                                        "date": "2024-05-01"})
    doc = read_file(path, "n.md")
    assert doc.title == "Notes"
    assert {k: doc.metadata[k] for k in ("author", "tags", "date", "format")} == {
        "author": "Ann", "tags": "cats, dogs", "date": "2024-05-01", "format": "markdown"}
    at = doc.text.index(PASSAGES[2][1])
    meta = chunk_metadata(doc.metadata, at)
    assert meta["section"] == "Notes > Penguins" and LAYOUT_KEY not in meta
    assert citation(meta) == "n.md, § Notes > Penguins"
    assert citation({"source": "r.pdf", "page": 2}) == "r.pdf, p. 2"


def test_each_bad_file_is_one_line_and_the_rest_is_read(tmp_path):
    good = tmp_path / "good.pdf"
    write_pdf(good, PASSAGES[:1])
    (tmp_path / "sub").mkdir()
    write_markdown(tmp_path / "sub" / "ok.md", PASSAGES[:1])
    (tmp_path / "truncated.pdf").write_bytes(good.read_bytes()[:900])
    (tmp_path / "text.pdf").write_text("just text")
    (tmp_path / "zip.pdf").write_bytes((write_docx(tmp_path / "x.docx", PASSAGES[:1])
                                        ).read_bytes())
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (tmp_path / "nul.md").write_bytes(b"abc\x00def")
    (tmp_path / "nobody.html").write_text("<html><head><title>t</title></head></html>")
    with zipfile.ZipFile(tmp_path / "other.docx", "w") as z:
        z.writestr("content.xml", "<a/>")
    (tmp_path / "scan.pdf").write_bytes(_image_only_pdf(tmp_path))
    os.symlink("..", tmp_path / "sub" / "loop")
    os.symlink("missing.txt", tmp_path / "dangling.txt")
    locked = tmp_path / "locked.txt"
    locked.write_text("secret")
    locked.chmod(0)
    docs, failures = read_folder(tmp_path, max_file_mb=1)
    root = os.geteuid() == 0  # root reads any file
    assert sorted(d.id for d in docs) == ["good.pdf", *(["locked.txt"] if root else []),
                                          "sub/ok.md", "x.docx"]
    reasons = dict(failures)
    expected = {"truncated.pdf": "truncated", "text.pdf": "not a PDF",
                "zip.pdf": "named .pdf but it is a zip", "empty.txt": "empty file",
                "binary.md": "named .md but it is a PNG", "nul.md": "binary data",
                "nobody.html": "no main text", "other.docx": "no Word document",
                "scan.pdf": "no text layer", "sub/loop": "symlink loop",
                "dangling.txt": "broken symlink"}
    if not root:
        expected["locked.txt"] = "permission denied"
    for rel, reason in expected.items():
        assert reason in reasons.get(rel, ""), (rel, reasons.get(rel))
    assert all("\n" not in r for r in reasons.values())
    big = tmp_path / "big.txt"
    big.write_bytes(b"word " * 300_000)
    with pytest.raises(ReadError, match="over the 1 MB limit"):
        read_file(big, "big.txt", max_file_mb=1)


def test_encrypted_pdf_is_reported(tmp_path):
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "e.pdf"),
                      encrypt=pdfencrypt.StandardEncryption("secret", "owner"))
    c.drawString(72, 720, "classified")
    c.save()
    with pytest.raises(ReadError, match="encrypted PDF"):
        read_file(tmp_path / "e.pdf", "e.pdf")


def test_globs():
    assert matches("a/b/report.pdf", ["*.pdf"]) and not matches("a/b/report.pdf", ["*.md"])
    assert matches("reports/2023/x.pdf", ["reports/**/*.pdf"])
    assert matches("reports/x.pdf", ["reports/**/*.pdf"]) and matches("drafts/x/y.md", ["drafts/"])
    assert not matches("other/reports/x.pdf", ["reports/*.pdf"])


def _image_only_pdf(tmp_path) -> bytes:
    """A 'scanned' page: an image and no text."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "scan-src.pdf"))
    c.rect(72, 72, 300, 400, fill=1)
    c.save()
    data = (tmp_path / "scan-src.pdf").read_bytes()
    (tmp_path / "scan-src.pdf").unlink()
    return data


def test_a_file_that_vanishes_or_changes_while_read_is_one_line(tmp_path, monkeypatch):
    from pathlib import Path

    path = tmp_path / "n.md"
    path.write_text("# A\n\ntext\n")
    real = Path.read_bytes

    def vanishing(self):
        self.unlink()
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", vanishing)
    with pytest.raises(ReadError, match="vanished while being read"):
        read_file(path, "n.md")
    path.write_text("# A\n\ntext\n")

    def growing(self):
        data = real(self)
        with open(self, "a") as fh:
            fh.write("more text written meanwhile\n")
        return data

    monkeypatch.setattr(Path, "read_bytes", growing)
    with pytest.raises(ReadError, match="changed while being read"):
        read_file(path, "n.md")
