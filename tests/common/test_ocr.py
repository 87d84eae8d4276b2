"""Scanned pages read by OCR (issue 51), with Debian's Tesseract (installed where absent by the
project's setup, `common.documents.ocr.ensure_tesseract`, as the browser tests install Chromium):
pages of a real PDF rendered by PDFium and Chinese text drawn by FreeType, read within a stated
character error rate; a scanned PDF (page images only) searched and cited with its page numbers,
its chunks carrying `ocr_confidence` and highlighted by their words' boxes; a page under the
confidence floor reported, never indexed silently; `--ocr off` keeping the old report; a
missing Tesseract named by its package."""

from __future__ import annotations

import re

import pytest

from bench.kit.ocrkit import cer
from bench.kit.richwriters import (
    CJK_FONT,
    chinese_page,
    rendered_pages,
    scanned_pdf,
    write_outlined_pdf,
)
from common.documents import LAYOUT_KEY, ReadError, chunk_metadata, read_file
from common.documents import ocr as ocr_module

pytestmark = pytest.mark.slow  # Tesseract takes seconds a page on 2 busy cores
pytest.importorskip("reportlab")
pytest.importorskip("pytesseract")

ENGLISH_CER = 0.02  # rendered pages of a real PDF, 300 dpi (measured 0.0: bench/results/ocr.md)
CHINESE_CER = 0.05  # FreeType's Noto Sans CJK at 300 dpi (measured 0.026: full-width ！；read
#                     as ASCII)
CHINESE = ["苹果好吃。苹果发布会在加州举行！", "自然语言处理是人工智能的一个分支；",
           "深度学习模型，例如BERT和GPT，改变了这个领域。",
           "北京、上海和广州的研究人员也参与其中。"]
TEXT = " ".join(f"Rising oil prices in region {n} pushed inflation above the central bank "
                f"target while output slowed in sector {n}." for n in range(60))


@pytest.fixture(scope="module", autouse=True)
def tesseract():
    problem = ocr_module.ensure_tesseract()
    if problem:
        pytest.skip(f"Tesseract cannot be installed here: {problem}")


@pytest.fixture(scope="module")
def guide(tmp_path_factory):
    folder = tmp_path_factory.mktemp("guide")
    write_outlined_pdf(folder / "guide.pdf", [("1 Options", [("1.1 Keys", TEXT)])])
    return folder / "guide.pdf"


def test_a_rendered_english_page_reads_within_its_error_rate(guide):
    doc = read_file(guide, "guide.pdf")  # the text layer: the truth
    truth = "\n".join(doc.text[s:e] for s, e, p, _ in doc.metadata[LAYOUT_KEY]["spans"]
                      if p == 1)
    page = ocr_module.ocr_image(rendered_pages(guide, [1])[0])
    assert cer(truth, page.text) <= ENGLISH_CER, page.text[:300]
    assert page.confidence > ocr_module.CONFIDENCE_FLOOR
    for word in page.words:  # each word's place in the text and on the image
        assert page.text[word.start:word.end] == word.text.rstrip("-")[:word.end - word.start]
        assert 0 <= word.box[0] < word.box[2] <= page.size[0]


def test_a_rendered_chinese_page_reads_within_its_error_rate(tmp_path):
    from common.debian import ensure_packages

    problem = ensure_packages(["fonts-noto-cjk"], CJK_FONT.exists)
    if problem:
        pytest.skip(f"no CJK font to draw Chinese with: {problem}")
    image = chinese_page(CHINESE)
    image.save(tmp_path / "scan.png")
    doc = read_file(tmp_path / "scan.png", "scan.png")
    assert cer("".join(CHINESE), doc.text) <= CHINESE_CER, doc.text
    assert not re.search(r"[\u3000-\u9fff\uff00-\uffef] [\u3000-\u9fff\uff00-\uffef]",
                         doc.text), "no space between Chinese characters"
    assert doc.metadata["format"] == "image" and doc.metadata[LAYOUT_KEY]["ocr"]["1"] > 50


def test_a_chinese_scan_is_found_by_its_words(tmp_path, tiny_encoder):
    """Chinese read by OCR goes through the Chinese splitter (jieba) like typed Chinese: a
    query's words find the scan, cited on its page."""
    from common.debian import ensure_packages
    from indexer import SemanticIndex, sync_folder

    if ensure_packages(["fonts-noto-cjk"], CJK_FONT.exists):
        pytest.skip("no CJK font to draw Chinese with")
    folder = tmp_path / "scans"
    folder.mkdir()
    chinese_page(CHINESE).save(folder / "scan.png")
    (folder / "other.md").write_text("# 天气\n\n今天北方有大风，明天有小雨。\n", encoding="utf-8")
    sync_folder(folder, tmp_path / "idx", model=tiny_encoder, preset="flat")
    index = SemanticIndex.open(tmp_path / "idx", encoder=tiny_encoder)
    # words of one chunk only ("…的研究人员" tied two chunks within 0.001 of BM25 score)
    top = index.search("自然语言处理和人工智能", k=2, mode="lexical")[0]
    assert top.doc_id == "scan.png" and top.metadata["page"] == 1
    assert "自然语言处理" in top.text and top.metadata["ocr_confidence"] > 50


def test_a_scanned_pdf_is_searched_and_cited_with_its_pages(guide, tmp_path, tiny_encoder):
    from indexer import ChunkingConfig, SemanticIndex, sync_folder
    from indexer.pages import highlight

    folder = tmp_path / "scans"
    folder.mkdir()
    scanned_pdf(folder / "letter.pdf", rendered_pages(guide, [1, 2]))
    with pytest.raises(ReadError, match="no text layer in its 2 pages .* --ocr auto"):
        read_file(folder / "letter.pdf", "letter.pdf", ocr="off")
    report = sync_folder(folder, tmp_path / "idx", model=tiny_encoder, preset="flat",
                         chunking=ChunkingConfig(chunk_tokens=48, overlap=4))
    assert report.added == ["letter.pdf"] and not report.failed
    index = SemanticIndex.open(tmp_path / "idx", encoder=tiny_encoder)
    layer = read_file(guide, "guide.pdf")  # where the text layer has each region
    page_of = {n: layer.metadata[LAYOUT_KEY]["spans"][i][2] for n in (5, 55)
               for i, (s, e, _, _) in enumerate(layer.metadata[LAYOUT_KEY]["spans"])
               if f"region {n} " in layer.text[s:e]}
    assert page_of == {5: 1, 55: 2}
    for n in (5, 55):  # each found and cited on the page whose image holds its words
        top = index.search(f"region {n} sector {n}", k=3, mode="lexical")[0]
        assert f"region {n} " in top.text and top.metadata["source"] == "letter.pdf"
        assert top.metadata["page"] == page_of[n] and top.metadata["ocr_confidence"] > 50
    (page,) = highlight(index, "letter.pdf", top.chunk_id)
    assert page.page == 2 and page.boxes and page.text == top.text
    for left, top_, right, bottom in page.boxes:
        assert 0 <= left < right <= page.width and 0 <= top_ < bottom <= page.height


def test_a_page_under_the_confidence_floor_is_reported_not_indexed(guide):
    from common.documents.pdf import read_pdf

    if not CJK_FONT.exists():
        pytest.skip("no CJK font to draw Chinese with")
    scan = scanned_pdf(guide.parent / "mixed.pdf",
                       [rendered_pages(guide, [1])[0], chinese_page(CHINESE)])
    # read as English only, the Chinese page's mean confidence falls to ~34, under the floor
    parsed = read_pdf(scan.read_bytes(), langs="eng")
    assert {s.page for s in parsed.segments if s.text.strip()} == {1}
    (note,) = parsed.notes
    assert note.startswith("page 2: OCR read it with a mean confidence of ")
    assert "under the floor of 50: left out" in note and set(parsed.layout["ocr"]) == {"1"}


def test_a_missing_tesseract_names_its_package(tmp_path, monkeypatch):
    monkeypatch.setattr(ocr_module.shutil, "which", lambda name: None)
    assert "the Debian package tesseract-ocr is not installed" in ocr_module.tesseract_problem()
    monkeypatch.undo()
    monkeypatch.setattr(ocr_module, "tessdata_langs", lambda: {"eng", "osd"})
    problem = ocr_module.tesseract_problem()
    assert "needs the Debian package tesseract-ocr-chi-sim" in problem and "make ocr" in problem
    (tmp_path / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    with pytest.raises(ReadError, match="tesseract-ocr-chi-sim"):
        read_file(tmp_path / "a.png", "a.png")


def test_ocr_confidence_reaches_each_chunk_of_its_page():
    metadata = {"source": "a.pdf", LAYOUT_KEY: {"spans": [[0, 10, 1, None], [12, 20, 2, None]],
                                                "sections": [], "ocr": {"2": 88.5}}}
    assert "ocr_confidence" not in chunk_metadata(metadata, 3)
    assert chunk_metadata(metadata, 14)["ocr_confidence"] == 88.5
