"""`manifest.json`: the one file that says which version of an index is current. Read and
checked here; every way it can be damaged is a `CorruptIndexError` naming it."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import xxhash

from ...diskivf import RERANK_DELTA
from ...errors import CorruptIndexError
from ...manifest import FORMAT, FORMAT_VERSION

# 2: BM25 kept as segments and vectors added since the base in a delta file. Older BERTScope
# reads format 1 only, so it refuses a format 2 index ("upgrade") instead of silently missing
# the delta's vectors; format 1 indexes open here, and their next save writes format 2.
# 3: an `ivfpq-disk` vectors folder holding `rerank_delta.npz`, the re-rank rows added since
# its `rerank.npy` (`diskivf`), which a format 2 reader would not look for: it refuses format 3
# ("upgrade") instead of re-ranking without them. Only a version with that file is format 3
# (`format_of`): one without it is what format 2 readers read right, and stays readable by them.
SEGMENTS_FORMAT = 2
FOLDER_FORMAT_VERSION = 3  # the newest this version writes
READABLE_FORMATS = (FORMAT_VERSION, SEGMENTS_FORMAT, FOLDER_FORMAT_VERSION)

MANIFEST = "manifest.json"
ROLES = {"faiss": "vectors.faiss", "sqlite": "store.sqlite", "bm25": "bm25"}  # role -> file
# files a version may lack (one written before they existed): the filter index (`Columns`), and
# the vectors added since the base FAISS file (`VectorSegments`; none: the base holds them all)
OPTIONAL_ROLES = {"fields": "fields", "faiss_delta": "vectors_delta.npz"}
ALL_ROLES = {**ROLES, **OPTIONAL_ROLES}
# what the code reads from a manifest, and its type
FIELDS = {"version": int, "files": dict, "encoder": dict, "dim": int, "preset": str,
          "faiss_spec": str, "knobs": dict, "chunking": dict, "metadata_fields": dict,
          "counts": dict, "built_at": str, "updated_at": str, "duplicates": int, "skipped": list}
ENTRY_FIELDS = {"path": str, "checksum": str, "bytes": int}


def format_of(faiss_file: Path) -> int:
    """The format a version whose vectors are `faiss_file` is written as: 3 where they hold a
    re-rank rows delta, else 2."""
    return FOLDER_FORMAT_VERSION if (faiss_file / RERANK_DELTA).is_file() else SEGMENTS_FORMAT


def rebuild_hint(folder: Path) -> str:
    return f"rebuild it with `python -m indexer build --corpus PATH --out {folder}`"


def token(raw: bytes | None) -> str | None:
    """What identifies one published state: a digest of the manifest's bytes (None: no index)."""
    return None if raw is None else xxhash.xxh3_128_hexdigest(raw)


def read_raw(folder: Path) -> bytes | None:
    try:
        return (folder / MANIFEST).read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise CorruptIndexError(f"{folder / MANIFEST} is a folder, not a manifest file") from exc


def to_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def read_manifest(folder: Path) -> tuple[dict, str]:
    """(manifest, token) of the index at `folder`; FileNotFoundError where there is none."""
    raw = read_raw(folder)
    if raw is None:
        raise FileNotFoundError(
            f"no index at {folder} (no {MANIFEST}): build one with "
            f"`python -m indexer build --corpus PATH --out {folder}`")
    return parse(folder, raw), token(raw)


def parse(folder: Path, raw: bytes) -> dict:
    path = folder / MANIFEST
    if not raw.strip():
        raise CorruptIndexError(f"{path} is empty: the index is damaged; {rebuild_hint(folder)}")
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptIndexError(f"{path} is not valid JSON ({exc}): the index is damaged; "
                                f"{rebuild_hint(folder)}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CorruptIndexError(f"{path} is not a BERTScope index manifest (no \"format\": "
                                f"\"{FORMAT}\"): open a folder that `python -m indexer build` "
                                "wrote")
    have = manifest.get("format_version")
    if isinstance(have, int) and not isinstance(have, bool) and have > FOLDER_FORMAT_VERSION:
        raise CorruptIndexError(
            f"{path} was written by a newer BERTScope (index format {have}; this one reads "
            f"formats up to {FOLDER_FORMAT_VERSION}): upgrade BERTScope to open it")
    if have not in READABLE_FORMATS or isinstance(have, bool):
        raise CorruptIndexError(f"{path} has index format {have!r}; this version reads formats "
                                f"{READABLE_FORMATS[0]} to {READABLE_FORMATS[-1]}: "
                                f"{rebuild_hint(folder)}")
    _check_fields(path, manifest, FIELDS, folder)
    for role in ROLES:
        entry = manifest["files"].get(role)
        if not isinstance(entry, dict):
            raise CorruptIndexError(f"{path} names no {role} file: the manifest is damaged; "
                                    f"{rebuild_hint(folder)}")
        _check_fields(path, entry, ENTRY_FIELDS, folder, f"files.{role}.")
        entry_path(folder, role, entry)
    for role in OPTIONAL_ROLES:
        entry = manifest["files"].get(role)
        if entry is not None:
            if not isinstance(entry, dict):
                raise CorruptIndexError(f"{path}: files.{role} is not an entry: the manifest is "
                                        f"damaged; {rebuild_hint(folder)}")
            _check_fields(path, entry, ENTRY_FIELDS, folder, f"files.{role}.")
            entry_path(folder, role, entry)
    return manifest


def _check_fields(path: Path, data: dict, fields: dict, folder: Path, prefix: str = "") -> None:
    for key, kind in fields.items():
        value = data.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise CorruptIndexError(
                f"{path}: {prefix}{key} is {'missing' if value is None else repr(value)[:40]}, "
                f"not of type {kind.__name__}: the manifest is damaged; {rebuild_hint(folder)}")


def entry_path(folder: Path, role: str, entry: dict) -> Path:
    """The file a manifest entry names, which must lie inside `folder`."""
    rel = PurePosixPath(entry["path"])
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise CorruptIndexError(f"{folder / MANIFEST}: the {role} path {entry['path']!r} leads "
                                f"outside the index folder: the manifest is damaged; "
                                f"{rebuild_hint(folder)}")
    return folder.joinpath(*rel.parts)
