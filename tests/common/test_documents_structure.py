"""Structure the readers keep (issue 51), on files made by real writers (bench/kit/richwriters.py:
reportlab with an outline, python-pptx, ebooklib; python-docx and web pages by docwriters): a
PDF's outline gives every page range its heading path and no chunk span crosses a section; a
PDF without one falls back to headings by font; margin notes stay out of sentences; anchors
(¶) and empty trailing headings go; slides are pages with their notes; e-book chapters are
sections; an excerpt marks where a page ends."""

from __future__ import annotations

import pytest

from bench.kit.richwriters import NOTE, write_epub, write_outlined_pdf, write_pptx
from common.documents import (
    LAYOUT_KEY,
    ReadError,
    citation,
    page_starts,
    place_at,
    read_file,
    section_span,
)

pytest.importorskip("reportlab")

SENTENCE = ("Rising oil prices in Europe pushed inflation above the central bank target while "
            "manufacturing output slowed across the eurozone during the second quarter. ")
PLACES = ("Europe Asia Africa Canada Brazil Norway Japan Chile Kenya Peru Spain Italy Egypt India "
          "Mexico Chad Fiji Oman Laos Iran Iraq Cuba Mali Togo Niger Benin Gabon Ghana Nepal "
          "Yemen Qatar Malta Wales Korea Syria").split()
# no line repeats (a line on most pages is a running footer)
SENTENCES = iter(SENTENCE.replace("Europe", p).replace("eurozone", p) for p in PLACES)


def text(n: int) -> str:
    return "".join(next(SENTENCES) for _ in range(n))


CHAPTERS = [
    ("1 Introduction", [("1.1 Scope", text(5)), ("1.2 Terms", text(2))]),
    ("2 Options", [("2.1 Keys", text(14)), ("2.2 Values", text(4))]),
    ("3 Including graphics files", [("3.1 Bounding boxes", text(9))]),
]


def spans(doc):
    layout = doc.metadata[LAYOUT_KEY]
    return [(s, e, p, layout["sections"][n] if n is not None else None)
            for s, e, p, n in layout["spans"]]


def test_outline_sections_cover_every_page_range(tmp_path):
    written = write_outlined_pdf(tmp_path / "guide.pdf", CHAPTERS, lines_per_page=40)
    doc = read_file(tmp_path / "guide.pdf", "guide.pdf")
    assert any(len(pages) > 1 for pages in written.pages.values()), "a section spans pages"
    found: dict[str, list[int]] = {}
    for s, e, page, section in spans(doc):
        assert section, f"page {page} has text outside any section"
        if doc.text[s:e].strip() != section.rsplit(" > ", 1)[-1]:  # not the heading alone
            found.setdefault(section, []).append(page)
    # each section's text is cited on exactly the pages the writer drew it on
    assert {k: sorted(set(v)) for k, v in found.items()} == written.pages
    for s, e, _, section in spans(doc):
        leaf = section.rsplit(" > ", 1)[-1]
        assert leaf not in doc.text[s + 1:e], "a section's heading starts its segment only"
    hit = {**{k: v for k, v in doc.metadata.items() if k != LAYOUT_KEY},
           **place_at(doc.metadata, doc.text.index("3.1 Bounding boxes") + 20)}
    assert citation(hit) == "guide.pdf, p. 3, § 3 Including graphics files > 3.1 Bounding boxes" \
        or citation(hit).startswith("guide.pdf, p. ") and citation(hit).endswith(
            "§ 3 Including graphics files > 3.1 Bounding boxes")


def test_a_pdf_without_an_outline_takes_its_headings_from_their_font(tmp_path):
    write_outlined_pdf(tmp_path / "plain.pdf", CHAPTERS, outline=False)
    doc = read_file(tmp_path / "plain.pdf", "plain.pdf")
    sections = {section for _, _, _, section in spans(doc)}
    assert "2 Options > 2.1 Keys" in sections and "1 Introduction > 1.2 Terms" in sections
    assert not any("Rising oil" in (s or "") for s in sections)


def test_margin_notes_stay_out_of_sentences(tmp_path):
    written = write_outlined_pdf(tmp_path / "notes.pdf", CHAPTERS, notes=True)
    doc = read_file(tmp_path / "notes.pdf", "notes.pdf")
    assert NOTE.split()[0] not in doc.text, "a note repeated on every page is dropped"
    for note in written.notes:  # each its own line, after the paragraph it stands beside
        (s, e, page, _), = [sp for sp in spans(doc) if f"\n{note}" in doc.text[sp[0]:sp[1]]]
        lines = doc.text[s:e].split("\n")
        at = lines.index(note)
        # its paragraph ends before it, or the page does (the paragraph goes on over the page)
        assert lines[at - 1].endswith("quarter.") or all(
            ln in written.notes for ln in lines[at:]), (note, page, lines[at - 1][-60:])
    flowing = " ".join(t for t in doc.text.split("\n") if t not in written.notes)
    flowing = " ".join(flowing.split())  # a sentence may go on over a page break
    for place in PLACES[:34]:
        assert SENTENCE.replace("Europe", place).replace("eurozone", place).strip() in flowing


def test_anchors_and_empty_trailing_headings_go(tmp_path):
    page = tmp_path / "argparse.html"
    page.write_text(
        "<html><head><title>argparse</title></head><body><main><article>"
        "<h1>argparse — Parser<a class='headerlink' href='#x'>¶</a></h1>"
        "<h2>Command line options<a class='headerlink' href='#y'>¶</a></h2>"
        f"<p>{SENTENCE}</p>"
        "<h2>Example #</h2>"
        f"<p>{SENTENCE}</p><p class='caption'>A caption ¶</p>"
        "<p class='rubric'><b>Footnotes</b></p><h3>Footnotes</h3>"
        "</article></main></body></html>", encoding="utf-8")
    doc = read_file(page, page.name)
    assert "¶" not in doc.text and not any("¶" in s for *_, s in spans(doc) if s)
    assert {s for *_, s in spans(doc)} >= {"argparse — Parser > Command line options",
                                            "argparse — Parser > Example"}
    assert not doc.text.rstrip().endswith("Footnotes"), "no chunk ends on an orphan heading"
    md = tmp_path / "notes.md"
    md.write_text(f"# Setup 🔗\n\n{SENTENCE}\n\n## C#\n\n{SENTENCE}\n\n## Footnotes\n",
                  encoding="utf-8")
    doc = read_file(md, md.name)
    assert [s for *_, s in spans(doc)] == ["Setup", "Setup > C#"]


def test_slides_are_pages_with_their_notes(tmp_path):
    path = write_pptx(tmp_path / "deck.pptx", [
        ("Oil prices", ["Rising oil prices in Europe", "Inflation above target"],
         "Mention the central bank."),
        ("Penguins", ["Emperor penguins breed in winter"], "")])
    doc = read_file(path, "talks/deck.pptx")
    assert doc.title == "Oil prices" and doc.metadata["format"] == "pptx"
    assert [(p, s) for _, _, p, s in spans(doc)] == [(1, "Oil prices"), (2, "Penguins")]
    s, e, _, _ = spans(doc)[0]
    assert "Inflation above target" in doc.text[s:e] and "Notes: Mention the central bank." \
        in doc.text[s:e]
    with pytest.raises(ReadError, match="not a PowerPoint .pptx file"):
        (tmp_path / "bad.pptx").write_bytes(b"plain text, not a zip" * 10)
        read_file(tmp_path / "bad.pptx", "bad.pptx")


def test_an_ebook_s_chapters_are_sections(tmp_path):
    path = write_epub(tmp_path / "book.epub", [("Chapter 1", [("Scope", SENTENCE)]),
                                               ("Chapter 2", [("Keys", SENTENCE)])],
                      title="A manual")
    doc = read_file(path, "book.epub")
    assert doc.title == "A manual" and doc.metadata["format"] == "epub"
    sections = [s for *_, s in spans(doc)]
    assert sections == ["Chapter 1", "Chapter 1 > Scope", "Chapter 2", "Chapter 2 > Keys"]
    at = doc.text.index("Keys")
    assert section_span(doc.metadata, at + 10)[2] == "Chapter 2 > Keys"


def test_an_excerpt_marks_where_a_page_ends(tmp_path):
    from appkit.render import excerpt

    write_outlined_pdf(tmp_path / "guide.pdf", CHAPTERS)
    doc = read_file(tmp_path / "guide.pdf", "guide.pdf")
    (start, page), *_ = page_starts(doc.metadata)
    text, (a, b) = excerpt(doc.text, start - 120, start - 20, context=200,
                           page_starts=page_starts(doc.metadata))
    assert f"— p. {page} —" in text and text.index(f"— p. {page} —") > b
    assert text[a:b] == doc.text[start - 120:start - 20]
