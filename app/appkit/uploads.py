"""Uploaded corpus files: size limit, safe file name, kept for the build job that reads them in
its own process (`$BERTSCOPE_HOME/uploads/<index name>/`), and removed once that build has
ended (`forget_upload`); a stopped build keeps its upload, to resume from."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

UPLOAD_TYPES = ("jsonl", "ndjson", "json", "csv", "tsv", "parquet", "txt", "md")


MAX_NAME = 120  # characters kept of an uploaded file's name (file systems hold 255 bytes)


def safe_name(name: str) -> str:
    """A file name with no directory part, only plain characters and at most `MAX_NAME` of
    them (keeps the extension: a 300-character name was a raw "File name too long")."""
    base = Path(name.replace("\\", "/")).name
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip(".") or "upload"
    ext = Path(cleaned).suffix[:16]
    return cleaned[:MAX_NAME - len(ext)].rstrip(".") + ext if len(cleaned) > MAX_NAME \
        else cleaned


def upload_folder(index: str) -> Path:
    """Where the corpus uploaded to build index `index` is kept until its build ends."""
    from common import bertscope_home

    return bertscope_home("uploads") / index


def save_upload(name: str, data: bytes, limit_mb: int, folder: Path) -> Path:
    """Write `data` as `name` in `folder`, replacing what an earlier upload left there; refuse
    files above `limit_mb`, empty ones and types no reader takes (nothing written then).

    Returns what to hand the indexer: the file, or for .txt/.md its folder (a folder of text
    files is how the indexer reads plain text, one document per file).
    """
    if len(data) > limit_mb * 1024 * 1024:
        size = len(data) / 2**20
        raise ValueError(f"{name} is {size:.1f} MB; the upload limit is {limit_mb} MB.")
    if not data:
        raise ValueError(f"{name} is empty.")
    ext = Path(name).suffix.lower().lstrip(".")
    if ext not in UPLOAD_TYPES:
        raise ValueError(f"{name}: unsupported file type; use one of {', '.join(UPLOAD_TYPES)}.")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    path = folder / safe_name(name)
    path.write_bytes(data)
    return folder if ext in ("txt", "md") else path


def forget_upload(index: str) -> None:
    """Remove the corpus uploaded for index `index` (nothing there: nothing to do)."""
    shutil.rmtree(upload_folder(index), ignore_errors=True)


def index_name(text: str) -> str:
    """A new index's folder name: letters, digits, `-` and `_` only (no paths)."""
    name = text.strip()
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}", name):
        raise ValueError("Name the index with letters, digits, '-' and '_' (up to 64, no spaces).")
    return name
