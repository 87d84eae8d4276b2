"""What every store's manifest starts with: the format's name and version (a reader refuses a newer
one), and its timestamps. Where each store keeps it and what else it checks: the folder store's
`manifest.json` (`indexer.folder.store.manifest`), Milvus's collection properties
(`indexer.milvus.manifest`)."""

from __future__ import annotations

from datetime import UTC, datetime

FORMAT = "bertscope-index"
FORMAT_VERSION = 1


def now() -> str:
    """The time now, as a manifest records it (ISO-8601, UTC, whole seconds)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()
