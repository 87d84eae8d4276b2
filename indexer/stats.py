"""`IndexStats`: what a UI or `info` shows about an index, read from its manifest."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from common.lexical import Bm25Params

from .documents import SkippedRow
from .index_encoder import index_backend, index_fidelity


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
    backend: str = "torch"  # what made the vectors (indexes from before backends: torch)
    fidelity: float | None = 1.0  # its min cosine to torch fp32, measured at export
    bm25: dict[str, float] = field(default_factory=lambda: Bm25Params().to_dict())  # k1, b
    store: str = "folder"  # where it is kept: "folder" | "milvus"
    notes: list[SkippedRow] = field(default_factory=list)  # files read with something left out

    def to_dict(self) -> dict:
        return asdict(self)


def stats_of(path: str, m: dict, counts: dict[str, int], knobs: dict[str, int],
             store: str = "folder") -> IndexStats:
    """The stats of manifest `m` with the store's live `counts`."""
    return IndexStats(
        path=path, documents=counts["documents"], chunks=counts["chunks"],
        tombstones=counts["tombstones"], model=m["encoder"]["name"],
        fingerprint=m["encoder"]["fingerprint"], preset=m["preset"],
        faiss_spec=m["faiss_spec"], dim=m["dim"],
        size_bytes=sum(e["bytes"] for e in m["files"].values()),
        built_at=m["built_at"], updated_at=m["updated_at"], version=m["version"],
        duplicates=m["duplicates"], skipped=[SkippedRow(**s) for s in m["skipped"]],
        metadata_fields=dict(m["metadata_fields"]), chunking=dict(m["chunking"]),
        knobs=dict(knobs), source=m.get("source", ""), backend=index_backend(m, path),
        fidelity=index_fidelity(m), bm25=Bm25Params.of(m).to_dict(), store=store,
        notes=[SkippedRow(**s) for s in m.get("notes", [])],
    )
