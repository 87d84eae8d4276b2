"""The records a corpus read gives: `Document`s, the `SkippedRow`s reported beside them, and the
`CorpusError` raised for a corpus that cannot be read at all."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


class CorpusError(ValueError):
    """A corpus that cannot be read at all, or a bad row under `on_error="fail"`. Callers choose
    their own subclass through `CorpusOptions.error` (the indexer's is an `IndexerError`)."""


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    text: str
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SkippedRow:
    file: str
    line: int  # 1-based line (JSONL/CSV), row number (Parquet, datasets) or 0 (whole file)
    reason: str

    @property
    def where(self) -> str:
        """"file:line", or the file alone for a whole file (a document of a folder)."""
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_dict(self) -> dict:
        return asdict(self)
