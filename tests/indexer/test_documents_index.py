"""A folder of a user's documents, indexed on both stores: one document a file (id = relative
path), chunks that never cross a page or a section, and hits whose metadata cite `source`,
`page` (PDF) and `section`, per chunk and in hybrid search; metadata filters still work."""

from __future__ import annotations

import pytest

from bench.kit.docwriters import write_docx, write_html, write_markdown, write_pdf
from common.documents import LAYOUT_KEY
from indexer import ChunkingConfig, SemanticIndex, build_index

pytest.importorskip("reportlab")

TOPICS = ["cats purr on the sofa while the rain falls", "stocks fell sharply on Monday morning",
          "the team won the final after extra time", "penguins huddle in the antarctic winter"]
CHINESE = "苹果好吃。苹果发布会在加州举行！自然语言处理是人工智能的一个分支。" * 4


def passages(n: int, salt: str) -> list[tuple[str, str]]:
    return [(f"Part {i} {salt}", " ".join(f"{TOPICS[(i + j) % 4]} in {salt} {j}." for j in
                                          range(12))) for i in range(n)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("docs")
    (root / "reports").mkdir()
    write_pdf(root / "reports" / "annual-2023.pdf", passages(3, "report"), title="Annual 2023")
    write_pdf(root / "reports" / "zh.pdf", [("第一章", CHINESE), ("第二章", CHINESE)],
              chinese=True)
    write_docx(root / "plan.docx", passages(2, "plan"), title="Plan")
    write_html(root / "news.html", passages(2, "news"), title="News")
    write_markdown(root / "notes.md", passages(2, "notes"), title="Notes",
                   front_matter={"author": "Ann"})
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 nothing else")
    return root


def check_index(index, folder) -> None:
    assert len(index) == 5  # one document a file; broken.pdf reported, not indexed
    docs = index.documents(["reports/annual-2023.pdf", "notes.md"])
    pdf = docs["reports/annual-2023.pdf"]
    assert pdf.title == "Annual 2023" and pdf.metadata["format"] == "pdf"
    spans = {}
    for doc in index.documents([d for d in ("reports/annual-2023.pdf", "reports/zh.pdf",
                                            "plan.docx", "news.html", "notes.md")]).values():
        layout = doc.metadata[LAYOUT_KEY]
        spans[doc.id] = [(a, b, p, layout["sections"][s] if s is not None else None)
                         for a, b, p, s in layout["spans"]]
    hits = index.search(TOPICS[1], k=100, mode="hybrid", per_chunk=True)
    assert len(hits) == index.counts()["chunks"] > len(index)
    for hit in hits:
        assert hit.metadata["source"] == hit.doc_id and LAYOUT_KEY not in hit.metadata
        inside = [(p, s) for a, b, p, s in spans[hit.doc_id] if a <= hit.start and hit.end <= b]
        assert len(inside) == 1, hit  # within one page or section
        page, section = inside[0]
        assert hit.metadata.get("page") == page and hit.metadata.get("section") == section
    pages = {h.metadata["page"] for h in hits if h.doc_id == "reports/annual-2023.pdf"}
    assert pages == {1, 2, 3}
    assert {h.metadata["section"] for h in hits if h.doc_id == "notes.md"} >= {
        "Notes > Part 0 notes", "Notes > Part 1 notes"}
    zh = sorted((h for h in hits if h.doc_id == "reports/zh.pdf"), key=lambda h: h.start)
    assert {h.metadata["page"] for h in zh} == {1, 2} and len(zh) > 2
    page_ends = {b for a, b, _, _ in spans["reports/zh.pdf"]}
    for h in zh:  # a Chinese page is cut at its sentence ends (。！), not mid-sentence
        assert h.end in page_ends or h.text[-1] in "。！？；", h.text
    only = index.search(TOPICS[0], k=10, filter={"format": "pdf"})
    assert only and {h.doc_id for h in only} <= {"reports/annual-2023.pdf", "reports/zh.pdf"}
    assert index.field_values("format") == ["docx", "html", "markdown", "pdf"]


def test_folder_store(folder, tmp_path, tiny_encoder):
    index = build_index(str(folder), tmp_path / "idx", model=tiny_encoder, preset="flat",
                        chunking=ChunkingConfig(chunk_tokens=48, overlap=8))
    assert [(s.file, s.line) for s in index.stats().skipped] == [("broken.pdf", 0)]
    check_index(SemanticIndex.open(tmp_path / "idx", encoder=tiny_encoder), folder)


def test_milvus_store(folder, tmp_path, tiny_encoder):
    pytest.importorskip("milvus_lite")
    target = f"milvus://{tmp_path}/m.db?collection=docs"
    build_index(str(folder), target, model=tiny_encoder, preset="flat",
                chunking=ChunkingConfig(chunk_tokens=48, overlap=8))
    index = SemanticIndex.open(target, encoder=tiny_encoder)
    try:
        check_index(index, folder)
    finally:
        index.close()
