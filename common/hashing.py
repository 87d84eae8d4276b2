"""File checksums for damage detection (not security): xxh3-128, fast enough (several GB/s) that
verifying a large index costs little beside reading it; sha256 and the blake2b-160 of older
index manifests remain readable."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import xxhash

CHECKSUM = "xxh3-128"  # what new checksums use
BLOCK = 1 << 22

_ALGORITHMS: dict[str, Callable] = {
    "xxh3-128": xxhash.xxh3_128,
    "sha256": hashlib.sha256,
    "blake2b-160": lambda: hashlib.blake2b(digest_size=20),
}


def file_checksum(path: str | Path, algorithm: str = CHECKSUM) -> str:
    """Hex digest of a file, or of a folder's files (each one's relative path, then its bytes,
    in sorted order)."""
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"Invalid checksum algorithm {algorithm!r}. Valid: "
                         f"{', '.join(_ALGORITHMS)}")
    path = Path(path)
    h = _ALGORITHMS[algorithm]()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if path.is_dir():
            h.update(file.relative_to(path).as_posix().encode())
        with open(file, "rb") as fh:
            while block := fh.read(BLOCK):
                h.update(block)
    return h.hexdigest()
