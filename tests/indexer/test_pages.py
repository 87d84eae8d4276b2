"""A hit where it stands (issue 51), on both stores: a folder of files made by real writers
(reportlab with an outline, Markdown) synced into a folder index and into milvus-lite, then
every chunk of the PDF highlighted: each box lies inside its page, the characters under the
boxes are exactly the chunk's (PDFium's own character boxes, read back independently), a
sentence that goes on over a page break is marked on both pages, and a changed, removed or
out-of-folder file is refused instead of highlighted at stale offsets."""

from __future__ import annotations

import io
import shutil
import unicodedata
from collections import Counter

import pytest

from bench.kit.richwriters import write_outlined_pdf
from common.documents.highlight import passage_pages
from indexer import ChunkingConfig, SemanticIndex, sync_folder
from indexer.pages import FileChanged, NotFound, PageError, highlight, marked_pages, page_png

pytest.importorskip("reportlab")

SENTENCE = ("Rising oil prices in {} pushed inflation above the central bank target while "
            "manufacturing output slowed across {} during the second quarter. ")
PLACES = "Europe Asia Africa Canada Brazil Norway Japan Chile Kenya Peru Spain Italy".split()


def text(places) -> str:
    return "".join(SENTENCE.format(p, p) for p in places)


CHAPTERS = [("1 Introduction", [("1.1 Scope", text(PLACES[:3]))]),
            ("2 Options", [("2.1 Keys", text(PLACES * 3)), ("2.2 Values", text(PLACES[3:6]))])]


def target(store: str, tmp_path) -> str:
    if store == "milvus":
        pytest.importorskip("milvus_lite")
        return f"milvus://{tmp_path}/pages.db?collection=pages"
    return str(tmp_path / "pages-index")


@pytest.fixture(params=["folder", "milvus"])
def synced(request, tmp_path, tiny_encoder):
    folder = tmp_path / "docs"
    (folder / "manuals").mkdir(parents=True)
    write_outlined_pdf(folder / "manuals" / "guide.pdf", CHAPTERS, title="Guide")
    (folder / "notes.md").write_text("# Setup\n\nInstall it first.\n\n## Linux\n\n"
                                     "Use the package manager to install it.\n",
                                     encoding="utf-8")
    where = target(request.param, tmp_path)
    report = sync_folder(folder, where, model=tiny_encoder, preset="flat",
                         chunking=ChunkingConfig(chunk_tokens=40, overlap=4))
    assert not report.failed
    index = SemanticIndex.open(where, encoder=tiny_encoder)
    yield index, folder
    index.close()


def under(data: bytes, page: int, boxes) -> str:
    """The characters whose boxes' middles lie inside `boxes` (top-left points), by PDFium."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    try:
        pg = doc[page - 1]
        width, height = pg.get_size()
        tp = pg.get_textpage()
        out = []
        for i in range(tp.count_chars()):
            x0, y0, x1, y1 = tp.get_charbox(i)
            cx, cy = (x0 + x1) / 2, height - (y0 + y1) / 2
            if any(a <= cx <= c and b <= cy <= d for a, b, c, d in boxes):
                out.append(tp.get_text_range(i, 1))
        return "".join(out)
    finally:
        doc.close()


def letters(text: str) -> Counter:
    return Counter(c for c in unicodedata.normalize("NFKC", text) if not c.isspace())


def test_chunk_spans_are_where_hits_say_on_both_stores(synced):
    index, _ = synced
    for hit in index.search("oil prices inflation", k=5, mode="lexical"):
        spans = {cid: (s, e) for cid, s, e in index.chunk_spans(hit.doc_id)}
        assert spans[hit.chunk_id] == (hit.start, hit.end)
    assert index.chunk_spans("no such document") == []


def test_every_chunk_is_marked_exactly_where_it_stands(synced):
    index, folder = synced
    data = (folder / "manuals" / "guide.pdf").read_bytes()
    doc = index.document("manuals/guide.pdf")
    spans = index.chunk_spans(doc.id)
    assert len(spans) > 10
    crossing = 0
    for chunk_id, start, end in spans:
        pages = highlight(index, doc.id, chunk_id)
        pieces = passage_pages(doc.metadata, doc.text, start, end)
        assert [p.page for p in pages] == [p for p, _, _ in pieces]
        crossing += len(pages) > 1
        for boxes, (page, a, b) in zip(pages, pieces, strict=True):
            assert boxes.boxes, (chunk_id, page)
            for left, top, right, bottom in boxes.boxes:  # inside the page
                assert 0 <= left < right <= boxes.width and 0 <= top < bottom <= boxes.height
            # the characters under the boxes are the passage's, no more and no fewer
            assert letters(under(data, page, boxes.boxes)) == letters(doc.text[a:b]), \
                (chunk_id, page, doc.text[a:b][:80])
            assert boxes.text == doc.text[a:b]
    assert crossing, "a sentence that goes on over a page break is marked on both pages"


def test_the_page_is_a_png_with_the_passage_drawn(synced):
    from PIL import Image

    index, _ = synced
    chunk_id, _, _ = index.chunk_spans("manuals/guide.pdf")[2]
    page = marked_pages(index, "manuals/guide.pdf", chunk_id)[0]
    marked = Image.open(io.BytesIO(page_png(index, "manuals/guide.pdf", page,
                                            chunk_id=chunk_id))).convert("RGB")
    plain = Image.open(io.BytesIO(page_png(index, "manuals/guide.pdf", page))).convert("RGB")
    assert marked.size == plain.size and marked.size[0] > 800
    def amber(image) -> int:
        return sum(1 for r, g, b in image.getdata() if r > 200 and 150 < g < 240 and b < 170)

    assert amber(marked) > 500 and amber(plain) < amber(marked) / 10
    with pytest.raises(NotFound, match="pages"):
        page_png(index, "manuals/guide.pdf", 99)
    with pytest.raises(PageError, match="no pages"):
        page_png(index, "notes.md", 1)
    with pytest.raises(NotFound, match="no chunk"):
        highlight(index, "manuals/guide.pdf", 123456789)


def test_a_changed_or_removed_file_is_never_highlighted(synced):
    index, folder = synced
    chunk_id, _, _ = index.chunk_spans("manuals/guide.pdf")[0]
    pdf = folder / "manuals" / "guide.pdf"
    kept = pdf.read_bytes()
    write_outlined_pdf(pdf, CHAPTERS[1:])  # rewritten: other text, other offsets
    with pytest.raises(FileChanged, match="changed since it was indexed"):
        highlight(index, "manuals/guide.pdf", chunk_id)
    pdf.unlink()
    with pytest.raises(FileChanged, match="no longer in the folder"):
        page_png(index, "manuals/guide.pdf", 1)
    moved = folder.parent / "moved"
    shutil.copytree(folder, moved)
    (moved / "manuals" / "guide.pdf").write_bytes(kept)
    assert highlight(index, "manuals/guide.pdf", chunk_id, root=moved)  # a copy of the folder
