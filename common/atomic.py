"""Atomic writes: write beside the target under a unique name, fsync, rename over the target,
fsync the folder. An interrupted write never leaves half a file, and two writers never share a
temporary file."""

from __future__ import annotations

import json
import math
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


def fsync_path(path: str | Path) -> None:
    """fsync one file or folder (a folder's fsync makes the renames inside it durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(path: str | Path) -> None:
    """fsync a file, or every file and folder below a folder, the folder last."""
    path = Path(path)
    if path.is_dir():
        for child in path.iterdir():
            fsync_tree(child)
    fsync_path(path)


def temporary_name(path: Path) -> Path:
    """A hidden name beside `path` that no other writer uses: `.<name>.<random>.tmp`."""
    return path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")


@contextmanager
def write_atomic(path: str | Path, mode: str = "wb", encoding: str | None = None
                 ) -> Iterator[IO[Any]]:
    """`with write_atomic(p) as fh: fh.write(...)`: `p` holds the old content or all the new."""
    path = Path(path)
    tmp = temporary_name(path)
    try:
        with open(tmp, mode, encoding=encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_path(path.parent)


def write_json_atomic(path: str | Path, data: Any) -> None:
    """`data` as `json_text`, written atomically."""
    text = json_text(data)
    with write_atomic(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def json_text(data: Any) -> str:
    """Strict JSON, indented, ending in a newline: NaN and infinities, at any depth, become null
    (JSON has no NaN; strict readers reject the token), other non-JSON values their str."""
    return json.dumps(finite(data), indent=2, ensure_ascii=False, default=str,
                      allow_nan=False) + "\n"


def finite(value: Any) -> Any:
    """`value` with every NaN / ±inf float, at any depth, replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value
