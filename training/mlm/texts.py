"""Corpus documents as plain texts, and documents as sentences.

Reading: JSONL (a text field, plus `title` where present), a .txt file (documents separated by
blank lines), a folder of .txt/.md files (one document each). Rows without text are skipped and
counted, never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from common.jsonl import jsonl_objects

from ..errors import TrainingError

# A sentence ends at . ! ? (then space) or at 。！？； (no space in Chinese); lines end one too.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|(?<=[。！？；!?])[”’」』）]*|\n+")


@dataclass
class Documents:
    path: str
    texts: list[str]
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (row, reason)

    def summary(self) -> str:
        text = f"{self.path}: {len(self.texts)} documents"
        if self.skipped:
            first = "; ".join(f"row {r}: {why}" for r, why in self.skipped[:3])
            text += f", {len(self.skipped)} rows skipped ({first})"
        return text

    def report(self) -> dict:
        return {"path": self.path, "documents": len(self.texts),
                "skipped": [{"row": r, "reason": why} for r, why in self.skipped]}


def read_documents(path: str | Path, text_field: str = "text") -> Documents:
    """The documents of one corpus file or folder, as texts."""
    p = Path(path).expanduser()
    if not p.exists():
        raise TrainingError(f"corpus not found: {p}")
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.suffix.lower() in (".txt", ".md"))
        if not files:
            raise TrainingError(f"no .txt or .md files under {p}")
        docs = Documents(str(p), [])
        for n, f in enumerate(files, start=1):
            text = f.read_text(encoding="utf-8", errors="replace").strip()
            (docs.texts.append(text) if text else docs.skipped.append((n, f"{f.name} is empty")))
        return docs
    if p.suffix.lower() == ".txt":
        blocks = re.split(r"\n\s*\n", p.read_text(encoding="utf-8", errors="replace"))
        return Documents(str(p), [b.strip() for b in blocks if b.strip()])
    if p.suffix.lower() in (".jsonl", ".json"):
        return _jsonl(p, text_field)
    raise TrainingError(f"{p}: unknown corpus type {p.suffix!r}; use .jsonl, .txt or a folder")


def _jsonl(path: Path, text_field: str) -> Documents:
    docs = Documents(str(path), [])
    for n, row in jsonl_objects(path):  # the one line reader (and messages) of every part
        text = row.get(text_field) if isinstance(row, dict) else None
        if isinstance(row, str) or not isinstance(text, str) or not text.strip():
            docs.skipped.append((n, row if isinstance(row, str) else f"no text in {text_field!r}"))
            continue
        title = row.get("title")
        docs.texts.append(f"{title.strip()}\n{text}" if isinstance(title, str) and title.strip()
                          else text)
    if not docs.texts:
        first = docs.skipped[0][1] if docs.skipped else "empty file"
        raise TrainingError(f"{path}: no document with a {text_field!r} field (first: {first})")
    return docs


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text` (English and Chinese), whitespace trimmed."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.start() if m.group().strip() == "" else m.end()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out
