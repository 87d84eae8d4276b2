"""PDF headings found by font (issue 51), measured against the outlines real PDFs carry: for each
PDF with an outline, the headings `pdf_sections.heading_lines` finds when the outline is set
aside, against the outline's titles (a found heading is right when its words are a title's, or
a title's after its number). Precision: found headings that are titles; recall: titles found.
Real files: Debian's libtasn1 (texinfo) and shared-mime-info (DocBook) manuals where installed,
and a reportlab manual (chapters 16 pt bold, sections 12 pt bold, text 10 pt).

    .venv/bin/python -m bench.pdf_headings
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from bench.kit import benchkit
from bench.kit.richwriters import write_outlined_pdf

REAL = [Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
        Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")]
_NUMBER = re.compile(r"^(?:[A-Z]|\d+)(?:\.\d+)*\.?\s+")


def norm(title: str) -> str:
    return " ".join(re.findall(r"\w+", _NUMBER.sub("", title).lower()))


def measure(pdf: Path) -> dict:
    from common.documents.pdf import dropped_lines, open_pdf, page_lines, page_reading
    from common.documents.pdf_sections import heading_lines, outline

    doc = open_pdf(pdf.read_bytes())
    try:
        pages, sizes = [], []
        for page in doc:
            sizes.append(page.get_size())
            pages.append(page_lines(page))
        marks = outline(doc, len(pages)) or []
    finally:
        doc.close()
    drop = dropped_lines(pages, sizes)
    texts = [page_reading(lines, size, drop) for lines, size in zip(pages, sizes, strict=True)]
    found = [h.title for page in heading_lines(texts) for h in page]
    titles = {norm(m.title) for m in marks}
    right = [f for f in found if norm(f) in titles]
    hit = {norm(f) for f in right}
    return {"pages": len(pages), "outline": len(titles), "found": len(found),
            "precision": len(right) / len(found) if found else 0.0,
            "recall": len(hit) / len(titles) if titles else 0.0,
            "missed": sorted(titles - hit)[:12], "extra": [f for f in found
                                                         if norm(f) not in titles][:12]}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--name", default="pdf_headings")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        guide = Path(tmp) / "reportlab-guide.pdf"
        text = " ".join(f"Rising oil prices in region {i} pushed inflation above the target "
                        f"while output slowed in sector {i}." for i in range(60))
        write_outlined_pdf(guide, [(f"{c} Chapter {c}", [(f"{c}.{s} Section {c}.{s}", text)
                                                         for s in range(1, 4)])
                                   for c in range(1, 4)])
        files = [f for f in REAL if f.exists()] + [guide]
        payload = {f.name: measure(f) for f in files}
    rows = [f"| {name} | {m['pages']} | {m['outline']} | {m['found']} | {m['precision']:.2f} | "
            f"{m['recall']:.2f} | {', '.join(m['missed'][:4]) or '–'} | "
            f"{', '.join(m['extra'][:4]) or '–'} |" for name, m in payload.items()]
    table = ("# PDF headings by font, against the PDFs' own outlines\n\n"
             "Found: paragraphs of one or two lines set larger than the body text (x1.15) or "
             "bold at its size, short, not ending a sentence. Right: a found heading whose words "
             "are an outline title's (numbers aside).\n\n"
             "| file | pages | outline titles | found | precision | recall | missed (some) | "
             "found, not in the outline (some) |\n|---|---:|---:|---:|---:|---:|---|---|\n"
             + "\n".join(rows) + "\n")
    benchkit.write_results(args.name, payload, table)
    print(table)


if __name__ == "__main__":
    main()
