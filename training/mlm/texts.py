"""Corpus documents as plain texts, and documents as sentences.

Reading: every format the indexer reads, through the same shared readers (`common.corpus`):
JSONL with a text field (`title` put before the text where present), CSV/TSV, Parquet, a BEIR
folder, a folder of .txt/.md files (one document each), anything `datasets` loads; and a single
.txt file (documents separated by blank lines). Bad rows are skipped and reported as the indexer
reports them (file:line: reason), never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from common.corpus import (
    EXTENSIONS,
    CorpusOptions,
    CorpusReport,
    SkippedRow,
    detect_format,
    read_corpus,
    skipped_lines,
)

from ..errors import TrainingError

# A sentence ends at . ! ? (then space) or at 。！？； (no space in Chinese); lines end one too.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|(?<=[。！？；!?])[”’」』）]*|\n+")


@dataclass
class Documents:
    path: str
    texts: list[str]
    skipped: list[SkippedRow] = field(default_factory=list)
    duplicates: int = 0  # rows whose id was seen before; the later row was kept

    def summary(self) -> str:
        text = f"{self.path}: {len(self.texts)} documents"
        if self.skipped or self.duplicates:
            text += f", {len(self.skipped)} rows skipped, {self.duplicates} duplicate ids"
        return text

    def skipped_lines(self) -> list[str]:
        """The indexer's wording: one line per skipped row, then the counts."""
        return skipped_lines(self.skipped, self.duplicates)

    def report(self) -> dict:
        return {"path": self.path, "documents": len(self.texts),
                "skipped": [s.to_dict() for s in self.skipped], "duplicates": self.duplicates}


class _Options(CorpusOptions):
    error: ClassVar[type[ValueError]] = TrainingError


def read_documents(path: str | Path, text_field: str = "text") -> Documents:
    """The documents of one corpus file or folder, as texts."""
    if not text_field.strip():
        raise TrainingError(f"--text-field {text_field!r} is empty: name the column that holds "
                            "the text (default: text)")
    p = Path(path).expanduser()
    if not p.exists():
        raise TrainingError(f"corpus not found: {p}")
    if p.is_file() and p.suffix.lower() == ".txt":
        blocks = re.split(r"\n\s*\n", p.read_text(encoding="utf-8-sig", errors="replace"))
        texts = [b.strip() for b in blocks if b.strip()]
        if not texts:
            raise CorpusReport(documents=[], error=TrainingError).unusable(str(p))
        return Documents(str(p), texts)
    if p.is_file() and p.suffix.lower() not in EXTENSIONS:
        raise TrainingError(f"{p}: unknown corpus type {p.suffix!r}; use "
                            f"{', '.join(sorted(EXTENSIONS))}, .txt or a folder of .txt/.md files")
    # A folder's file names are no titles: its texts stand alone (a .md heading is in the text).
    folder = detect_format(p, TrainingError) == "folder"
    report = read_corpus(p, _Options(text_field=text_field, title_field=None if folder
                                     else "title"))
    if not report.documents:
        raise report.unusable(str(p))
    texts = [f"{d.title.strip()}\n{d.text.strip()}" if d.title.strip() else d.text.strip()
             for d in report.documents]
    return Documents(str(p), texts, report.skipped, report.duplicates)


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
