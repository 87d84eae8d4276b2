"""OCR of scanned pages (issue 51): Tesseract's pages/s on this machine's cores (one page at a
time, and one Tesseract a core side by side), the character error rate on pages of real PDFs
rendered by PDFium at 300 dpi against their own text layers (English: Debian's libtasn1 and
shared-mime-info manuals where installed, else a reportlab manual; Chinese: a reportlab PDF of
THUCNews titles from the shared data, set in reportlab's STSong-Light, which PDFium draws with a
substitute CJK font), in each language setting the product may use, and the share of a build's
wall time spent in OCR (a folder of scanned PDFs synced with minilm). The truth is a page's
whole text layer as PDFium gives it; pages of running text only (no title page, no table of
contents' dot leaders).

    .venv/bin/python -m bench.ocr [--pages 6] [--build-pages 4]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.kit import benchkit
from bench.kit.docwriters import write_pdf
from bench.kit.ocrkit import cer
from bench.kit.richwriters import page_truth, rendered_pages, scanned_pdf, write_outlined_pdf
from common.documents.ocr import LANGS, ensure_tesseract, ocr_image

MIN_CHARS = 800  # a page of running text (a title page, a figure: not what OCR is measured on)

REAL = [Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
        Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")]


def truth_of(pdf: Path, page: int) -> str:
    """The page's whole text layer as PDFium gives it (running headers and page numbers too,
    which OCR reads as well), PDFium's line-end hyphen marks as hyphens."""
    return page_truth(pdf, page).replace("\x02", "-").replace("\ufffe", "-")


def chinese_pdf(folder: Path) -> Path:
    titles = []
    try:
        path = benchkit.data_dir() / "thucnews-titles" / "corpus.jsonl"
        with path.open(encoding="utf-8") as fh:
            titles = [json.loads(next(fh))["text"] for _ in range(240)]
    except (SystemExit, OSError, StopIteration):
        titles = ["苹果好吃。苹果发布会在加州举行！自然语言处理是人工智能的一个分支。"] * 60
    passages = [(f"第{n + 1}章", "。".join(titles[n * 40:(n + 1) * 40]) + "。") for n in range(3)]
    write_pdf(folder / "zh.pdf", passages, chinese=True, header="新闻标题")
    return folder / "zh.pdf"


def english_pages(folder: Path, n: int) -> list[tuple[Path, int]]:
    found = [p for p in REAL if p.exists()]
    if not found:
        text = " ".join(f"Rising oil prices in region {i} pushed inflation above the target "
                        f"while output slowed in sector {i}." for i in range(120))
        write_outlined_pdf(folder / "guide.pdf", [("1 Options", [("1.1 Keys", text)])])
        found = [folder / "guide.pdf"]
    pages = []
    for pdf in found:  # pages of running text: no table of contents' dot leaders
        import pypdfium2 as pdfium

        total = len(pdfium.PdfDocument(str(pdf)))
        text_pages = [(pdf, p) for p in range(1, total + 1)
                      if len(page_truth(pdf, p)) >= MIN_CHARS and "....." not in
                      page_truth(pdf, p)]
        pages += text_pages[: max(1, n // len(found))]
    return pages[:n]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=6, help="English pages whose error rate is read")
    p.add_argument("--build-pages", type=int, default=4, help="scanned pages in the build")
    p.add_argument("--name", default="ocr")
    args = p.parse_args(argv)
    problem = ensure_tesseract()
    if problem:
        raise SystemExit(problem)
    cores = len(os.sched_getaffinity(0))
    load_before = os.getloadavg()[0]
    payload: dict = {"cores": cores, "langs": LANGS, "load_before": load_before}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        english = english_pages(folder, args.pages)
        zh = chinese_pdf(folder)
        sets = {"English": english, "Chinese": [(zh, 1), (zh, 2)]}
        rows = []
        images = {}
        for lang, pages in sets.items():
            for pdf, page in pages:
                images[(pdf, page)] = rendered_pages(pdf, [page])[0]
            for langs in ("eng", "chi_sim", LANGS):
                if (lang, langs) == ("English", "chi_sim") or (lang, langs) == ("Chinese", "eng"):
                    continue
                rates, seconds, confidence = [], 0.0, []
                for pdf, page in pages:
                    clock = time.perf_counter()
                    read = ocr_image(images[(pdf, page)], langs)
                    seconds += time.perf_counter() - clock
                    rates.append(cer(truth_of(pdf, page), read.text))
                    confidence.append(read.confidence)
                files = sorted({pdf.name for pdf, _ in pages})
                payload[f"{lang}/{langs}"] = {"cer": rates, "confidence": confidence,
                                              "s_per_page": seconds / len(pages),
                                              "files": files}
                rows.append(f"| {lang} | `{langs}` | {len(pages)} | "
                            f"{sum(rates) / len(rates):.4f} | {max(rates):.4f} | "
                            f"{sum(confidence) / len(confidence):.1f} | "
                            f"{seconds / len(pages):.2f} | {', '.join(files)} |")
        # throughput: the English pages one at a time, then one Tesseract a core side by side
        batch = [images[k] for k in english]
        clock = time.perf_counter()
        for image in batch:
            ocr_image(image)
        one = len(batch) / (time.perf_counter() - clock)
        clock = time.perf_counter()
        with ThreadPoolExecutor(cores) as pool:
            list(pool.map(ocr_image, batch))
        many = len(batch) / (time.perf_counter() - clock)
        payload["pages_per_s"] = {"one": one, "cores": many}
        # a build's share: scanned PDFs synced with minilm, reading (OCR) timed apart
        scans = folder / "scans"
        scans.mkdir()
        for n, (pdf, page) in enumerate(english[: args.build_pages]):
            scanned_pdf(scans / f"scan-{n}.pdf", [images[(pdf, page)]])
        from indexer import sync_folder

        clock = time.perf_counter()
        report = sync_folder(scans, folder / "idx", model="minilm", preset="flat")
        build = time.perf_counter() - clock
        clock = time.perf_counter()
        from common.documents import read_folder

        read_folder(scans)
        reading = time.perf_counter() - clock
        payload["build"] = {"pages": args.build_pages, "wall_s": build, "read_s": reading,
                            "added": len(report.added), "failed": report.failed}
    table = (
        "# OCR: speed, character error rate, a build's share\n\n"
        f"Tesseract {LANGS!r} by default (pytesseract driving Debian's tesseract-ocr 5.3, one "
        f"OpenMP thread a Tesseract), pages rendered by PDFium at 300 dpi; {cores} cores. "
        "CER: edits over the text layer's characters, whitespace left out (bench/kit/ocrkit.py);"
        " a text layer read in another order than Tesseract reads the page (a margin, a table)"
        " counts as errors too.\n\n"
        "| pages | languages | pages read | CER mean | CER worst | confidence | s / page | "
        "files |\n|---|---|---:|---:|---:|---:|---:|---|\n" + "\n".join(rows) + "\n\n"
        f"Pages/s on the English pages: **{one:.2f}** one at a time, **{many:.2f}** with "
        f"{cores} Tesseracts side by side.\n\n"
        f"A build of {args.build_pages} scanned one-page PDFs (sync, minilm, flat): "
        f"{build:.1f} s wall; reading them (OCR) alone took {reading:.1f} s, "
        f"**{100 * reading / build:.0f} %** of the build.\n")
    payload["load_after"] = os.getloadavg()[0]
    table += (f"\nLoad average before / after: {load_before:.2f} / {payload['load_after']:.2f} "
              f"(other work shared the {cores} cores: read the times as an upper bound).\n")
    benchkit.write_results(args.name, payload, table)
    print(table)


if __name__ == "__main__":
    main()
