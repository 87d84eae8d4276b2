"""Which library reads each format: speed and text quality of two or more candidates on the
same generated files (bench/kit/docwriters.py), with SciFact abstracts as the text where the shared
data is there (else generated sentences).

Quality is how much of the text a reader gives back, in order: difflib's ratio between the
words written (heading and text of each passage) and the words read (1.0: every word, in
order, nothing added), and how often boilerplate (running headers / footers, web navigation,
cookie banners, related links) is left in. PDFs: a third in two columns drawn line by line
across both, every line end of a long word hyphenated. The PDF candidates other than pypdf
feed the same line pipeline (common/documents/pdf_lines.py), so the comparison is of what each
finds on a page; pypdf gives text without positions, cleaned by line only.

    .venv/bin/python -m bench.ingest_readers [--files 60]
"""

from __future__ import annotations

import argparse
import difflib
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.kit import benchkit
from bench.kit.docwriters import (
    BOILERPLATE_WORDS,
    HEADER,
    passages,
    write_docx,
    write_html,
    write_pdf,
)

PASSAGES_PER_FILE = 4


def words(text: str) -> list[str]:
    """Words, and each CJK character as one."""
    return re.findall(r"[\u3400-\u9fff]|[^\W\u3400-\u9fff]+", text.lower())


def ratio(expected: list[str], got: list[str]) -> float:
    return difflib.SequenceMatcher(None, expected, got, autojunk=False).ratio()


# -- PDF candidates ----------------------------------------------------------------------------
def pdf_pdfium(path: Path) -> tuple[str, int]:
    from common.documents.pdf import read_pdf

    parsed = read_pdf(path.read_bytes())
    return "\n".join(s.text for s in parsed.segments), len(parsed.segments)


def pdf_pdfminer(path: Path) -> tuple[str, int]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTTextContainer, LTTextLineHorizontal

    from common.documents.pdf_lines import Line, page_text, reading_order, running_lines

    pages, sizes = [], []
    for page in extract_pages(str(path), laparams=LAParams()):
        lines = []
        for box in page:
            if isinstance(box, LTTextContainer):
                lines += [Line(ln.x0, ln.y0, ln.x1, ln.y1, ln.get_text().strip())
                          for ln in box if isinstance(ln, LTTextLineHorizontal)
                          and ln.get_text().strip()]
        pages.append(lines)
        sizes.append((page.width, page.height))
    height = max(h for _, h in sizes)
    drop = running_lines(pages, height)
    texts = [page_text(reading_order(lines, w), drop, h)
             for lines, (w, h) in zip(pages, sizes, strict=True)]
    return "\n".join(texts), len(pages)


def pdf_pypdf(path: Path) -> tuple[str, int]:
    import pypdf

    pages = [p.extract_text() or "" for p in pypdf.PdfReader(str(path)).pages]
    seen: dict[str, int] = {}
    for text in pages:  # lines repeated on most pages: running headers and footers
        for line in {re.sub(r"\d+", "#", x.strip()) for x in text.splitlines()}:
            seen[line] = seen.get(line, 0) + 1
    drop = {k for k, n in seen.items() if n > len(pages) / 2 and n >= 2}
    out = []
    for text in pages:
        kept = [x.strip() for x in text.splitlines() if re.sub(r"\d+", "#", x.strip())
                not in drop]
        joined = ""
        for line in kept:
            joined = joined[:-1] + line if re.search(r"[^\W\d_]-$", joined) and \
                line[:1].islower() else (joined + " " + line).strip()
        out.append(joined)
    return "\n".join(out), len(pages)


# -- HTML candidates ---------------------------------------------------------------------------
def html_trafilatura_precision(path: Path) -> tuple[str, int]:
    from common.documents.web import read_html

    return "\n".join(s.text for s in read_html(path.read_bytes()).segments), 1


def html_trafilatura_default(path: Path) -> tuple[str, int]:
    from common.documents.web import read_html

    parsed = read_html(path.read_bytes(), favor_precision=False)
    return "\n".join(s.text for s in parsed.segments), 1


def html_readability(path: Path) -> tuple[str, int]:
    import lxml.html
    from readability import Document

    summary = Document(path.read_text(encoding="utf-8")).summary(html_partial=True)
    return lxml.html.fromstring(summary).text_content(), 1


# -- DOCX candidates ---------------------------------------------------------------------------
def docx_python_docx(path: Path) -> tuple[str, int]:
    from common.documents.word import read_docx

    return "\n".join(s.text for s in read_docx(path.read_bytes()).segments), 1


def docx_docx2python(path: Path) -> tuple[str, int]:
    from docx2python import docx2python

    with docx2python(str(path)) as doc:
        return doc.text, 1


CANDIDATES: dict[str, dict[str, Callable[[Path], tuple[str, int]]]] = {
    "pdf": {"pypdfium2 (chosen)": pdf_pdfium, "pdfminer.six": pdf_pdfminer, "pypdf": pdf_pypdf},
    "html": {"trafilatura, favor_precision (chosen)": html_trafilatura_precision,
             "trafilatura, default": html_trafilatura_default,
             "readability-lxml": html_readability},
    "docx": {"python-docx (chosen)": docx_python_docx, "docx2python": docx_docx2python},
}


def make_files(folder: Path, n: int) -> dict[str, list[tuple[Path, list[str]]]]:
    """n files a format: (path, the words written into it)."""
    pool = passages(n * PASSAGES_PER_FILE)
    out: dict[str, list] = {"pdf": [], "html": [], "docx": []}
    for i in range(n):
        chosen = pool[i * PASSAGES_PER_FILE:(i + 1) * PASSAGES_PER_FILE]
        expected = [w for h, t in chosen for w in words(h) + words(t)]
        pdf = folder / f"f{i}.pdf"
        write_pdf(pdf, chosen, columns=2 if i % 3 == 0 else 1, hyphenate=True)
        out["pdf"].append((pdf, expected))
        title = f"Collection {i}"
        shown = chosen
        if i % 6 == 4:  # a short Chinese page
            shown = [("苹果", "苹果好吃。苹果发布会在加州举行！")]
        elif i % 3 == 1:  # a short page: one passage cut to two sentences, boilerplate around it
            shown = [(chosen[0][0], " ".join(chosen[0][1].split(". ")[:2]) + ".")]
        page = write_html(folder / f"f{i}.html", shown, title=title)
        out["html"].append((page, words(title) + [w for h, t in shown
                                                  for w in words(h) + words(t)]))
        doc = write_docx(folder / f"f{i}.docx", chosen, title=title)
        out["docx"].append((doc, words(title) + expected))
    return out


def measure(files, read) -> dict:
    ratios, leaks, pages = [], 0, 0
    for path, _ in files:  # a first pass: imports and first-call set-up are not reading
        read(path)
    started = time.perf_counter()
    texts = []
    for path, _ in files:
        text, n = read(path)
        texts.append(text)
        pages += n
    seconds = time.perf_counter() - started
    for (_, expected), text in zip(files, texts, strict=True):
        ratios.append(ratio(expected, words(text)))
        leaks += any(w in text for w in (*BOILERPLATE_WORDS, HEADER))
    return {"files": len(files), "pages": pages, "seconds": round(seconds, 3),
            "files_per_s": round(len(files) / seconds, 1),
            "pages_per_s": round(pages / seconds, 1),
            "text_ratio_mean": round(sum(ratios) / len(ratios), 4),
            "text_ratio_min": round(min(ratios), 4), "boilerplate_files": leaks}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=60, help="files a format")
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-readers-") as tmp:
        files = make_files(Path(tmp), args.files)
        for fmt, candidates in CANDIDATES.items():
            for name, read in candidates.items():
                result = measure(files[fmt], read)
                rows.append({"format": fmt, "reader": name, **result})
                print(fmt, name, result, flush=True)
    table = ["# Document readers: speed and text quality", "",
             f"{args.files} generated files a format, {PASSAGES_PER_FILE} SciFact abstracts "
             "each (PDF: one a page, a running header and footer, every third file in two "
             "columns drawn across both, long words hyphenated at line ends; web pages inside "
             "navigation, a cookie banner, related links and a footer, every third one a short "
             "article of two sentences (every sixth in Chinese); Word: a heading a "
             "passage). Times: the second of two passes over the files. Text ratio: "
             "difflib's ratio of the words read to the words written (1 = all, in order, "
             "nothing added); boilerplate: files with a header, footer or "
             "web boilerplate word left in.", "",
             "| format | reader | files/s | pages/s | text ratio (mean) | (min) | boilerplate |",
             "|---|---|---:|---:|---:|---:|---:|"]
    table += [f"| {r['format']} | {r['reader']} | {r['files_per_s']} | {r['pages_per_s']} | "
              f"{r['text_ratio_mean']:.4f} | {r['text_ratio_min']:.4f} | "
              f"{r['boilerplate_files']} of {r['files']} |" for r in rows]
    benchkit.write_results("ingest-readers", {"files_per_format": args.files, "rows": rows},
                           "\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
