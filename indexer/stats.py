"""`IndexStats`: what a UI or `info` shows about an index, read from its manifest."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .documents import SkippedRow


@dataclass(frozen=True)
class IndexStats:
    path: str
    documents: int
    chunks: int
    tombstones: int  # chunks deleted but still in the FAISS file (hnsw, ivfpq) until `compact`
    model: str
    fingerprint: str
    preset: str
    faiss_spec: str
    dim: int
    size_bytes: int  # all files of the current version
    built_at: str  # ISO-8601 UTC
    updated_at: str
    version: int
    duplicates: int
    skipped: list[SkippedRow] = field(default_factory=list)
    # field name -> "str" | "int" | "float" | "bool" | "mixed"
    metadata_fields: dict[str, str] = field(default_factory=dict)
    chunking: dict = field(default_factory=dict)
    knobs: dict[str, int] = field(default_factory=dict)  # search knobs this preset takes, defaults
    source: str = ""

    def to_dict(self) -> dict:
        return asdict(self)
