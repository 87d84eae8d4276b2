"""Plain records that flow through the indexer: documents in and skipped rows reported (the
shared corpus records of `common.corpus`), hits out."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from common.corpus import Document, SkippedRow

__all__ = ["Document", "Hit", "SkippedRow"]


@dataclass(frozen=True)
class Hit:
    doc_id: str
    chunk_id: int
    score: float
    rank: int  # 1-based
    text: str  # the chunk's text, exactly document.text[start:end]
    title: str
    start: int  # character offsets of the chunk in the document text (the span to highlight)
    end: int
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)
