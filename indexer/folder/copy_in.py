"""Copy an index into a folder as stored (`indexer.migrate`): each batch of documents becomes a
file in a private `.build-migrate-<key>/` folder of the target, which a re-run reuses; the
folder index is then published as a build publishes, and verified right after (a mismatch
raises; the previous version stays on disk beside it until the next write)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from common import check_path, write_atomic
from common.lexical import Bm25Params

from ..documents import Document
from ..presets import spec_for
from ..shards import shards_folder
from ..stored import StoredBatch
from . import store
from .index import FolderIndex
from .publish import publish_folder

KEPT = ("format", "format_version", "built_at", "encoder", "dim", "metric", "normalized",
        "chunking", "source", "rows", "duplicates", "skipped")


def copy_into_folder(source, ids: Sequence[str], dst: Path, batch_docs: int,
                     preset: str | None, progress: Callable[[int, int], None], identity: str,
                     verify) -> tuple[FolderIndex, int, int]:
    out = check_path(dst, "dst", "a folder path for the index")
    base = store.check_target(out)
    key = hashlib.blake2b(f"{identity}|{batch_docs}".encode(), digest_size=10)
    work = shards_folder(out, f"migrate-{key.hexdigest()}")
    try:
        plan = work.path / "plan.json"
        if plan.exists():
            ids = json.loads(plan.read_text(encoding="utf-8"))
        else:
            with write_atomic(plan, "w", encoding="utf-8") as fh:
                json.dump(list(ids), fh)
        parts = [ids[i:i + batch_docs] for i in range(0, len(ids), batch_docs)]
        resumed = 0
        for i, part in enumerate(parts):
            done = work.path / f"part-{i:06d}.npz"
            if done.exists():
                resumed += len(part)
            else:
                _save_part(done, source.stored(part))
            progress(sum(len(p) for p in parts[:i + 1]), len(ids))
        batches = [_load_part(work.path / f"part-{i:06d}.npz") for i in range(len(parts))]
        m = source.manifest
        chunks = [c for b in batches for c in b.chunks]
        vectors = (np.vstack([b.vectors for b in batches]) if chunks
                   else np.empty((0, m["dim"]), np.float32))
        spec = spec_for(preset or m["preset"], len(chunks), m["dim"])
        index = publish_folder(out, base, [d for b in batches for d in b.docs], chunks, vectors,
                               spec, {**{k: m[k] for k in KEPT}, "notes": m.get("notes", [])},
                               Bm25Params.of(m),
                               lambda p: None, {"engine": "migrate", "from": str(source.location),
                                                "stages": {}})
    except BaseException:
        work.release()  # kept: a re-run continues from its parts
        raise
    work.discard()
    return index, resumed, verify(index)


def _save_part(path: Path, b: StoredBatch) -> None:
    with write_atomic(path) as fh:
        np.savez(fh, vectors=b.vectors, rows=np.array(json.dumps(
            {"docs": [[d.id, d.title, d.text, d.metadata] for d in b.docs],
             "chunks": b.chunks}, ensure_ascii=False)))


def _load_part(path: Path) -> StoredBatch:
    with np.load(path, allow_pickle=False) as z:
        data = json.loads(str(z["rows"]))
        vectors = z["vectors"]
    docs = [Document(i, text, title, meta) for i, title, text, meta in data["docs"]]
    return StoredBatch(docs, [tuple(c) for c in data["chunks"]], vectors)
