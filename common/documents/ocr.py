"""Scanned pages read by Tesseract (Debian's `tesseract-ocr`, `tesseract-ocr-eng`,
`tesseract-ocr-chi-sim`), through pytesseract: it runs Debian's own `tesseract` program, so the
OCR is the one the Debian packages install (tesserocr's wheel brings its own libtesseract 5.5
beside it), and in a side-by-side trial on rendered pages of a real PDF both took the same time
a page, each with one OpenMP thread (Tesseract's default, a thread a core, was several times
slower on 2 busy cores). Speed and error rates: bench/results/ocr.md.

`ocr_image` gives an `OcrPage`: its text (words joined, a line of Chinese without spaces), where
each word lies in that text and on the image (kept for highlighting) and the page's mean word
confidence (0-100). `OCR_MODES`: `auto` reads only pages with no text layer, `off` reports them
as before, `force` reads every page by OCR."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .pdf_lines import is_cjk as _cjk
from .records import ReadError

OCR_MODES = ("auto", "off", "force")
PACKAGES = {"tesseract": "tesseract-ocr", "eng": "tesseract-ocr-eng",
            "chi_sim": "tesseract-ocr-chi-sim"}
LANGS = "eng+chi_sim"  # English and simplified Chinese pages alike (bench/results/ocr.md)
DPI = 300  # what Tesseract reads best; a page is rendered at this resolution for it
CONFIDENCE_FLOOR = 50.0  # a page's mean word confidence below it: reported, not indexed
MAX_PIXELS = 60_000_000  # an image larger than this (a 7,700 px square) is refused, not read
INSTALL = "make ocr (or: apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim)"


@dataclass(frozen=True)
class OcrWord:
    text: str
    start: int  # where the word lies in `OcrPage.text` (a hyphen it lost at a line end: not in)
    end: int
    box: tuple[int, int, int, int]  # left, top, right, bottom in image pixels
    confidence: float


@dataclass(frozen=True)
class OcrPage:
    text: str
    words: list[OcrWord] = field(default_factory=list)
    confidence: float = 0.0  # mean word confidence, 0-100
    size: tuple[int, int] = (0, 0)  # the image's width and height in pixels

    def to_json(self) -> dict:
        return {"text": self.text, "confidence": self.confidence, "size": list(self.size),
                "words": [[w.start, w.end, *w.box] for w in self.words]}


def tessdata_langs() -> set[str] | None:
    """The languages Tesseract has data for here; None without the program."""
    program = shutil.which("tesseract")
    if program is None:
        return None
    import subprocess

    done = subprocess.run([program, "--list-langs"], capture_output=True, text=True, timeout=60)
    return {ln.strip() for ln in done.stdout.splitlines()[1:] if ln.strip()}


def tesseract_problem(langs: str = LANGS) -> str | None:
    """Why OCR in `langs` cannot run here, naming the Debian package that is missing; None
    when it can."""
    have = tessdata_langs()
    if have is None:
        return (f"OCR needs Tesseract, and the Debian package {PACKAGES['tesseract']} is not "
                f"installed: {INSTALL}")
    missing = [PACKAGES.get(lang, f"tesseract-ocr-{lang.replace('_', '-')}")
               for lang in langs.split("+") if lang not in have]
    if missing:
        return (f"OCR in {langs} needs the Debian package {', '.join(missing)} (Tesseract's "
                f"{langs} data), which is not installed: {INSTALL}")
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        return "OCR needs the Python package pytesseract: pip install -r requirements.txt"
    return None


def ensure_tesseract() -> str | None:
    """Install Tesseract's Debian packages where absent (`common.debian`); why not, or None."""
    from ..debian import ensure_packages

    return ensure_packages(list(PACKAGES.values()), lambda: tesseract_problem() is None)


def _chinese_gap(text: str, word: str) -> bool:
    """Whether `word` follows `text` with no space: Chinese after Chinese, punctuation after
    Chinese, Chinese after punctuation that follows Chinese ("分支; 深度" reads "分支;深度")."""
    before = text[-1]
    if _cjk(before):
        return _cjk(word[0]) or not word[0].isalnum()
    return not before.isalnum() and len(text) > 1 and _cjk(text[-2]) and _cjk(word[0])


def _joined_text(lines: list[list[tuple[str, tuple, float]]]) -> tuple[str, list[OcrWord]]:
    """Lines of (word, box, confidence) as one text: words a space apart (none between Chinese
    characters), lines of a paragraph joined the same way, a word broken by a line-end hyphen
    rejoined; each word's place in the text kept."""
    text, words = "", []
    for line in lines:
        for n, (word, box, conf) in enumerate(line):
            if not text:
                gap = ""
            elif n == 0 and text.endswith("-") and len(text) > 1 and text[-2].isalpha() \
                    and word[:1].islower():
                text = text[:-1]  # "experi-" + "ment"
                last = words[-1]
                words[-1] = OcrWord(last.text, last.start, last.end - 1, last.box,
                                    last.confidence)
                gap = ""
            elif _chinese_gap(text, word):
                gap = ""  # Chinese, and its punctuation (Tesseract reads ！ as !), unspaced
            else:
                gap = " "
            text += gap
            words.append(OcrWord(word, len(text), len(text) + len(word), box, conf))
            text += word
    return text, words


def ocr_image(image, langs: str = LANGS) -> OcrPage:
    """The text of `image` (a PIL image) by Tesseract, paragraphs a line each."""
    problem = tesseract_problem(langs)
    if problem:
        raise ReadError(problem)
    import pytesseract

    # one OpenMP thread a Tesseract: its default (every core) was 6x slower on 2 shared cores
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    if image.width * image.height > MAX_PIXELS:
        raise ReadError(f"an image of {image.width} x {image.height} pixels, over the "
                        f"{MAX_PIXELS:,}-pixel limit for OCR: scale it down")
    image = image.convert("L") if image.mode not in ("L", "RGB") else image
    data = pytesseract.image_to_data(image, lang=langs, config="--psm 3",
                                     output_type=pytesseract.Output.DICT)
    paragraphs: dict[tuple, list[list]] = {}
    lines: dict[tuple, list] = {}
    for i, word in enumerate(data["text"]):
        word = (word or "").strip()
        conf = float(data["conf"][i])
        if not word or conf < 0:
            continue
        para = (data["block_num"][i], data["par_num"][i])
        line = (*para, data["line_num"][i])
        if line not in lines:
            lines[line] = []
            paragraphs.setdefault(para, []).append(lines[line])
        left, top = data["left"][i], data["top"][i]
        lines[line].append((word, (left, top, left + data["width"][i], top + data["height"][i]),
                            conf))
    text, words = "", []
    for para in paragraphs.values():
        joined, found = _joined_text(para)
        if text:
            text += "\n"
        words += [OcrWord(w.text, w.start + len(text), w.end + len(text), w.box, w.confidence)
                  for w in found]
        text += joined
    confidence = sum(w.confidence for w in words) / len(words) if words else 0.0
    return OcrPage(text, words, round(confidence, 2), (image.width, image.height))


def check_mode(ocr: str) -> str:
    if ocr not in OCR_MODES:
        raise ValueError(f"Invalid OCR mode {ocr!r}. Valid: {', '.join(OCR_MODES)} (auto: only "
                         "pages with no text layer)")
    return ocr


def cache_folder() -> Path:
    """Where the OCR of a file is kept (by its sha256): highlighting an OCR'd page reads its
    words' boxes from there instead of reading the page again."""
    from ..home import bertscope_home

    return bertscope_home("ocr")
