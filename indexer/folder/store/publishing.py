"""Writing an index folder: a writer's private staging folder, the publication of a new version
(the manifest switch last, under the folder's write lock: `indexer.private`), and the removal of
what no reader needs any more."""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path

from common import CHECKSUM, file_checksum, fsync_path, fsync_tree
from common.atomic import write_atomic

from ...errors import ConcurrentWriteError
from ...manifest import now
from ...private import OWNER_LOCK, Private, claim, remove, write_lock
from .manifest import ALL_ROLES, MANIFEST, ROLES, format_of, read_raw, to_bytes, token
from .version import size_of

STAGING = ".staging-"
# version files and folders: this layout's `v000007-<tag>`, and the flat names of older indexes
VERSIONED = re.compile(r"^(?:v(\d{6,})-[0-9a-f]+|vectors-(\d+)\.faiss|store-(\d+)\.sqlite|"
                       r"bm25-(\d+))$")


class StaleBase(ConcurrentWriteError):
    """The folder's manifest is no longer the one this writer started from."""


class Staging(Private):
    """A writer's next version while it is made: `.staging-<tag>/` with the files of ROLES."""

    def __init__(self, folder: Path) -> None:
        self.tag = uuid.uuid4().hex[:12]
        super().__init__(Path(folder) / f"{STAGING}{self.tag}")

    def file(self, role: str) -> Path:
        return self.path / ALL_ROLES[role]


def publish(folder: Path, staging: Staging, fields: dict, base: str | None
            ) -> tuple[dict, str]:
    """Make `staging`'s files the current version of `folder`; returns (manifest, token).

    `fields`: the manifest less `version`, `updated_at` and `files`. `base`: the token of the
    version the writer started from (None: no index yet); `StaleBase` when it is no longer
    current, with nothing published. The manifest switch is the last step: a failure or a kill
    before it leaves the old version current and debris that the next publish removes.
    """
    linked = _linked_entries(folder)
    entries = {role: linked.get(_file_key(staging.file(role))) or _entry(staging.file(role))
               for role in ALL_ROLES if role in ROLES or staging.file(role).exists()}
    entries = {role: {**e, "path": ALL_ROLES[role]} for role, e in entries.items()}
    fmt = format_of(staging.file("faiss"))
    fsync_tree(staging.path)
    with write_lock(folder):
        raw = read_raw(folder)
        if token(raw) != base:
            raise StaleBase(f"{folder} changed since this writer opened it")
        version = next_version(folder, fields.get("version", 0))
        name = f"v{version:06d}-{staging.tag}"
        os.rename(staging.path, folder / name)  # no longer a staging folder: no sweep claims it
        manifest = {**fields, "format_version": fmt, "version": version, "updated_at": now(),
                    "files": {role: {**e, "path": f"{name}/{e['path']}"}
                              for role, e in entries.items()}}
        data = to_bytes(manifest)
        try:
            fsync_path(folder)
            with write_atomic(folder / MANIFEST) as fh:  # the switch
                fh.write(data)
        except BaseException:
            os.rename(folder / name, staging.path)  # nothing published: the writer keeps its files
            raise
        (folder / name / OWNER_LOCK).unlink(missing_ok=True)
        staging.release()
        sweep(folder, keep={name} | _names(raw))
    return manifest, token(data)


def _entry(path: Path) -> dict:
    return {"bytes": size_of(path), "algorithm": CHECKSUM, "checksum": file_checksum(path)}


def _file_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size) if path.is_file() else None


def _linked_entries(folder: Path) -> dict[tuple[int, int, int], dict]:
    """The published version's single-file entries by (device, inode, size). A save hard-links
    the files it keeps (the FAISS base), whose checksums the published manifest holds: reading
    them again would read the whole base on every save. Version files are never changed in
    place, so one inode holds one content."""
    out = {}
    try:
        files = json.loads(read_raw(folder) or b"{}").get("files", {})
        for entry in files.values():
            key = _file_key(folder / entry["path"])
            if key is not None and entry.get("algorithm") == CHECKSUM:
                out[key] = {k: entry[k] for k in ("bytes", "algorithm", "checksum")}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # a damaged or foreign manifest: every checksum is computed
    return out


def next_version(folder: Path, at_least: int) -> int:
    """One above every version the folder has held (a damaged manifest's included)."""
    seen = [int(next(g for g in m.groups() if g)) for m in map(VERSIONED.match,
                                                                  os.listdir(folder)) if m]
    return max([at_least, *seen]) + 1


def _names(raw: bytes | None) -> set[str]:
    """The top-level names a manifest's files live under (none for a damaged manifest)."""
    try:
        files = json.loads(raw)["files"]
        return {str(e["path"]).split("/")[0] for e in files.values()}
    except Exception:
        return set()


def sweep(folder: Path, keep: set[str]) -> None:
    """Remove versions not in `keep`, staging folders whose writers died, stale temporary
    manifests. Runs under the write lock, so no private folder is half made."""
    for path in Path(folder).iterdir():
        name = path.name
        if name.startswith(STAGING):
            if path.is_dir() and not claim(path):
                continue  # a live writer's
            remove(path)
        elif VERSIONED.match(name) and name not in keep:
            remove(path)
        elif name.startswith(f".{MANIFEST}.") and name.endswith(".tmp"):
            remove(path)
