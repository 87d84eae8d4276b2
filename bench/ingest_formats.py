"""Which library reads PowerPoint and EPUB files (issue 51), by the measure bench/ingest_readers.py
uses for the other formats: speed, and how much of the text comes back in order (difflib's ratio
between the words written and the words read), on files written by real writers (python-pptx
decks of N slides with speaker notes, ebooklib books of N chapters; SciFact abstracts as the
text where the shared data is). Each library is set beside reading the zip's XML directly with
lxml (what a reader needs no library for), so that a library is kept only for what it gives.

    .venv/bin/python -m bench.ingest_formats [--files 40]
"""

from __future__ import annotations

import argparse
import io
import re
import tempfile
import time
import zipfile
from pathlib import Path

from bench.ingest_readers import ratio, words
from bench.kit import benchkit
from bench.kit.docwriters import passages
from bench.kit.richwriters import write_epub, write_pptx

SLIDES, CHAPTERS = 12, 6


def pptx_library(data: bytes) -> str:
    from common.documents.slides import read_pptx

    return "\n".join(s.text for s in read_pptx(data).segments)


def pptx_xml(data: bytes) -> str:
    """Slides in order of their number, every a:t run, then the notes slide's runs."""
    from lxml import etree

    out = []
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = z.namelist()
        slides = sorted((n for n in names if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
                        key=lambda n: int(re.findall(r"\d+", n)[0]))
        for name in slides:
            for part in (name, name.replace("slides/slide", "notesSlides/notesSlide")):
                if part in names:
                    root = etree.fromstring(z.read(part))
                    out += [t.text or "" for t in root.iter(
                        "{http://schemas.openxmlformats.org/drawingml/2006/main}t")]
    return "\n".join(out)


def epub_library(data: bytes) -> str:
    from common.documents.ebook import read_epub

    return "\n".join(s.text for s in read_epub(data).segments)


def epub_xml(data: bytes) -> str:
    """container.xml -> the OPF -> its spine's documents, each one's text by lxml."""
    from lxml import etree
    from lxml import html as lxml_html

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        container = etree.fromstring(z.read("META-INF/container.xml"))
        opf_path = container.find(".//{*}rootfile").get("full-path")
        opf = etree.fromstring(z.read(opf_path))
        base = opf_path.rsplit("/", 1)[0] + "/" if "/" in opf_path else ""
        items = {i.get("id"): i.get("href") for i in opf.iter("{*}item")}
        out = []
        for ref in opf.iter("{*}itemref"):
            href = items.get(ref.get("idref"))
            if href and not href.startswith("nav"):
                out.append(" ".join(lxml_html.fromstring(z.read(base + href)).itertext()))
    return "\n".join(out)


CANDIDATES = {"pptx": {"python-pptx (chosen)": pptx_library, "zip + lxml": pptx_xml},
              "epub": {"ebooklib (chosen)": epub_library, "zip + lxml": epub_xml}}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=40)
    p.add_argument("--name", default="ingest-formats")
    args = p.parse_args(argv)
    texts = passages(args.files * SLIDES)
    rows, payload = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[str, list[tuple[bytes, list[str]]]] = {"pptx": [], "epub": []}
        for n in range(args.files):
            part = texts[n * SLIDES:(n + 1) * SLIDES]
            deck = write_pptx(Path(tmp) / f"d{n}.pptx", [
                (title, [s.strip() + "." for s in body.split(". ")[:3]], body[:300])
                for title, body in part])
            files["pptx"].append((deck.read_bytes(), words(" ".join(
                f"{t} {' '.join(s.strip() + '.' for s in b.split('. ')[:3])} {b[:300]}"
                for t, b in part))))
            chapters = [(f"Chapter {c + 1}", [part[2 * c], part[2 * c + 1]])
                        for c in range(CHAPTERS)]
            book = write_epub(Path(tmp) / f"b{n}.epub", chapters)
            files["epub"].append((book.read_bytes(), words(" ".join(
                f"{c} " + " ".join(f"{h} {t}" for h, t in secs) for c, secs in chapters))))
        for fmt, candidates in CANDIDATES.items():
            for name, read in candidates.items():
                clock = time.perf_counter()
                got = [read(data) for data, _ in files[fmt]]
                seconds = time.perf_counter() - clock
                quality = sum(ratio(want, words(text)) for (_, want), text
                              in zip(files[fmt], got, strict=True)) / len(got)
                payload[f"{fmt}/{name}"] = {"files_per_s": len(got) / seconds,
                                            "ratio": quality}
                rows.append(f"| {fmt} | {name} | {len(got)} | {len(got) / seconds:.1f} | "
                            f"{quality:.4f} |")
    table = ("# PowerPoint and EPUB readers\n\n"
             f"{args.files} decks of {SLIDES} slides (title, 3 points, speaker notes) by "
             f"python-pptx and {args.files} books of {CHAPTERS} chapters by ebooklib, SciFact "
             "abstracts as their text. Quality: difflib's ratio of the words written to the "
             "words read, in order (1.0: all of them, nothing added).\n\n"
             "| format | reader | files | files/s | quality |\n|---|---|---:|---:|---:|\n"
             + "\n".join(rows) + "\n")
    benchkit.write_results(args.name, payload, table)
    print(table)


if __name__ == "__main__":
    main()
