"""The index directory on disk: versioned files published by an atomic swap of `manifest.json`.

Layout: `manifest.json` names `vectors-<v>.faiss`, `store-<v>.sqlite` and `bm25-<v>/` with their
checksums. A save writes the next version's files aside, fsyncs them, then replaces the manifest
(write aside, fsync, rename). The previous version's files are kept, so a reader that read the
old manifest a moment ago can still open them; older ones are removed.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import CorruptIndexError

FORMAT = "bertscope-index"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
LOCK = ".write.lock"


def version_names(version: int) -> dict[str, str]:
    return {"faiss": f"vectors-{version:06d}.faiss", "sqlite": f"store-{version:06d}.sqlite",
            "bm25": f"bm25-{version:06d}"}


def fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(path: Path) -> None:
    """fsync a file, or every file in a folder and the folder itself."""
    if path.is_dir():
        for child in path.iterdir():
            fsync_tree(child)
    fsync_path(path)


def checksum(path: Path) -> str:
    """blake2b of a file, or of a folder's files (names and bytes, sorted)."""
    h = hashlib.blake2b(digest_size=20)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        h.update(file.relative_to(path).as_posix().encode() if path.is_dir() else b"")
        with open(file, "rb") as fh:
            while block := fh.read(1 << 20):
                h.update(block)
    return h.hexdigest()


def size_of(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, ensure_ascii=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_path(path.parent)


def read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(
            f"no index at {folder} (no {MANIFEST}): build one with "
            f"`python -m indexer build --corpus PATH --out {folder}`"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CorruptIndexError(f"{path} is not valid JSON ({exc}): rebuild the index") from exc
    if manifest.get("format") != FORMAT:
        raise CorruptIndexError(f"{path} is not a BERTScope index manifest")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise CorruptIndexError(
            f"{folder} has index format {manifest.get('format_version')}; this version reads "
            f"format {FORMAT_VERSION}: rebuild the index with `python -m indexer build`"
        )
    return manifest


def verify(folder: Path, manifest: dict) -> None:
    """Every file the manifest names exists and matches its checksum."""
    for role, entry in manifest["files"].items():
        path = folder / entry["path"]
        if not path.exists():
            raise FileNotFoundError(f"{path} ({role}) is missing")
        if checksum(path) != entry["checksum"]:
            raise CorruptIndexError(
                f"{path} ({role}) fails its checksum: the file is damaged; rebuild the index "
                f"with `python -m indexer build` (or restore it from a backup)"
            )


def file_entries(folder: Path, names: dict[str, str]) -> dict[str, dict]:
    return {role: {"path": name, "checksum": checksum(folder / name),
                   "bytes": size_of(folder / name)} for role, name in names.items()}


@contextmanager
def writer_lock(folder: Path) -> Iterator[None]:
    """One writer at a time per index folder (readers never wait)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK, "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise RuntimeError(f"another process is writing {folder}; wait for it to finish"
                               ) from exc
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def remove_old_versions(folder: Path, keep: set[str]) -> None:
    """Delete version files not in `keep`, and leftovers of interrupted saves."""
    for path in folder.iterdir():
        name = path.name
        versioned = name.startswith(("vectors-", "store-", "bm25-")) or name.startswith(".staging-")
        if versioned and name not in keep:
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
