"""Plain records that flow through the indexer: documents in, skipped rows reported, hits out."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Document:
    id: str
    text: str
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def coerce(cls, item: Document | dict, where: str = "document") -> Document:
        """A `Document` from itself or a dict with `id`, `text`, optional `title`, `metadata`;
        wrong types and empty ids or texts raise, naming `where` and the key."""
        from .validation import check_document_fields

        if isinstance(item, Document):
            return cls(*check_document_fields(asdict(item), where))
        if not isinstance(item, dict):
            raise TypeError(f"{where} must be a Document or a dict with 'id' and 'text' keys, "
                            f"got {type(item).__name__}")
        return cls(*check_document_fields(item, where))


@dataclass(frozen=True)
class SkippedRow:
    file: str
    line: int  # 1-based line (JSONL/CSV), row number (Parquet, datasets) or 0 (whole file)
    reason: str

    def to_dict(self) -> dict:
        return asdict(self)


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
