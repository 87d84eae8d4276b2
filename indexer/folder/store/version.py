"""Open one published version: read the manifest, check each file's size and checksum, load
FAISS, SQLite and BM25. Any damage is a `CorruptIndexError` naming the file; a version pruned
by a writer while it was being read is read again from the newer manifest."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from common import check_path, file_checksum
from common.bm25_segments import load_lexical
from common.lexical import LexicalIndex

from ...errors import CorruptIndexError, IndexerError
from .. import db
from ..columns import Columns
from .manifest import (
    MANIFEST,
    OPTIONAL_ROLES,
    ROLES,
    entry_path,
    read_manifest,
    read_raw,
    rebuild_hint,
    token,
)
from .vector_segments import VectorSegments

RETRIES = 20
LEGACY_CHECKSUM = "blake2b-160"  # manifests written before entries named their algorithm


@dataclass
class Version:
    """One published version, loaded. `token` identifies it: a save starting from it publishes
    only while the folder's manifest still has this token."""

    folder: Path
    manifest: dict
    token: str | None
    vectors: VectorSegments
    conn: sqlite3.Connection
    lexical: LexicalIndex | None  # None: rebuilt from the store when needed
    columns: Columns | None = None  # the filter index; None: a version written before it


class _Moved(Exception):
    """A file vanished or changed while it was read: the folder may have a newer version."""


def open_version(folder: str | Path, *, verify: bool = True) -> Version:
    """The current version at `folder`. `verify` checks every file's checksum (sizes always)."""
    folder = check_folder(folder)
    for _ in range(RETRIES):
        manifest, tok = read_manifest(folder)
        try:
            return Version(folder, manifest, tok, *_load(folder, manifest, verify))
        except (_Moved, CorruptIndexError) as exc:
            if token(read_raw(folder)) != tok:
                continue  # a writer published (and pruned) meanwhile: read the new version
            if isinstance(exc, CorruptIndexError):
                raise
            raise CorruptIndexError(f"{exc}: the index is damaged; {rebuild_hint(folder)}"
                                    ) from exc
    raise CorruptIndexError(f"{folder} kept changing while it was opened ({RETRIES} versions); "
                            "try again")


def check_folder(path: object) -> Path:
    """An index folder path: a file (the manifest itself, a corpus) is refused naming what to
    pass instead, before a manifest is looked for inside it."""
    folder = check_path(path, "index path", "an index folder path")
    if folder.is_file():
        if folder.name == MANIFEST:
            raise IndexerError(f"{folder} is an index's manifest: pass its folder, {folder.parent}")
        raise IndexerError(f"{folder} is a file, not an index folder (one holding {MANIFEST})")
    for parent in folder.parents:
        if parent.is_file():
            raise IndexerError(f"index path {folder}: {parent} is a file, not a folder")
        if (parent / MANIFEST).is_file():
            raise IndexerError(f"{folder} lies inside the index {parent}: pass {parent}")
    return folder


def _load(folder: Path, manifest: dict, verify: bool):
    files = manifest["files"]
    paths = {role: entry_path(folder, role, files[role])
             for role in (*ROLES, *OPTIONAL_ROLES) if role in files}
    for role, path in paths.items():
        check_file(folder, role, path, files[role], verify)
    conn = _read(folder, "sqlite", paths["sqlite"], db.open_readonly)
    vectors = _read(folder, "faiss", paths["faiss"],
                    partial(VectorSegments.load, delta_path=paths.get("faiss_delta")))
    lexical = _read(folder, "bm25", paths["bm25"], partial(load_lexical, mapped=True))
    columns = _read(folder, "fields", paths["fields"], Columns.load) if "fields" in paths \
        else None
    return vectors, conn, lexical, columns


def check_file(folder: Path, role: str, path: Path, entry: dict, verify: bool) -> None:
    """`path` exists with the size the manifest gives, and (with `verify`) its checksum."""
    if not path.exists():
        raise _Moved(f"{path} ({role}) is missing")
    try:
        size = size_of(path)
        if size != entry["bytes"]:
            what = "empty" if size == 0 else f"{size:,} bytes where the manifest says " \
                f"{entry['bytes']:,}"
            raise CorruptIndexError(f"{path} ({role}) is {what}: the file is damaged; "
                                    f"{rebuild_hint(folder)}")
        if verify:
            algorithm = entry.get("algorithm", LEGACY_CHECKSUM)
            if file_checksum(path, algorithm) != entry["checksum"]:
                raise CorruptIndexError(
                    f"{path} ({role}) fails its checksum: the file is damaged; "
                    f"{rebuild_hint(folder)} (or restore it from a backup)")
    except FileNotFoundError as exc:
        raise _Moved(f"{path} ({role}) is missing") from exc


def size_of(path: Path) -> int:
    """Bytes of a file, or of every file below a folder."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def _read(folder: Path, role: str, path: Path, load):
    try:
        return load(path)
    except FileNotFoundError as exc:
        raise _Moved(f"{path} ({role}) is missing") from exc
    except Exception as exc:  # each library fails its own way; what matters is which file
        raise CorruptIndexError(
            f"{path} ({role}) cannot be read ({type(exc).__name__}: {str(exc)[:200]}): the file "
            f"is damaged; {rebuild_hint(folder)}") from exc
