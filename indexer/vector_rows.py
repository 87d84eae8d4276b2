"""`VectorRows`: a build's vectors, read a slice at a time from where they already are (the
encode shards on disk, a memory-mapped `--vectors` file, an array), so that publishing adds them
to FAISS (or writes them as Milvus rows) in batches and RAM never holds a second copy beside the
index's own."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from common.npy import load_npy, read_rows, release_pages

BATCH = 65_536  # rows added to an index at a time (96 MB of 384-d float32)


class VectorRows:
    """Rows 0..n-1 of float32 unit vectors: `len`, slicing, `batches`, `sample`, `array`."""

    def __init__(self, parts: Sequence[np.ndarray], *, normalize: bool = False) -> None:
        self._parts = list(parts)  # arrays or mapped files, in row order
        self._starts = np.cumsum([0, *[len(p) for p in self._parts]])
        self._normalize = normalize
        self.dim = self._parts[0].shape[1] if self._parts else 0

    @classmethod
    def of_files(cls, files: Sequence[Path]) -> VectorRows:
        """The encode shards (`.npy`, unit rows), mapped."""
        return cls([load_npy(f) for f in files])

    def __len__(self) -> int:
        return int(self._starts[-1])

    @property
    def shape(self) -> tuple[int, int]:
        return len(self), self.dim

    def __getitem__(self, rows: slice) -> np.ndarray:
        if not isinstance(rows, slice) or rows.step not in (None, 1):
            raise TypeError("VectorRows takes a contiguous slice")
        start, stop, _ = rows.indices(len(self))
        out = []
        for part, first in zip(self._parts, self._starts[:-1], strict=True):
            lo, hi = max(start - first, 0), min(stop - first, len(part))
            if lo < hi:
                out.append(read_rows(part, lo, hi))  # a mapped file's pages given back
        block = np.concatenate(out) if out else np.empty((0, self.dim), np.float32)
        if self._normalize and len(block):
            block = block / np.linalg.norm(block, axis=1, keepdims=True)
        return np.ascontiguousarray(block, dtype=np.float32)

    def batches(self, size: int = BATCH) -> Iterator[tuple[int, np.ndarray]]:
        for first in range(0, len(self), size):
            yield first, self[first:first + size]

    def sample(self, n: int, seed: int = 0) -> np.ndarray:
        """`n` rows drawn without replacement (all when there are fewer), in row order."""
        if n >= len(self):
            return self[0:len(self)]
        rows = np.sort(np.random.default_rng(seed).choice(len(self), n, replace=False))
        out = []
        for part, first in zip(self._parts, self._starts[:-1], strict=True):
            inside = rows[(rows >= first) & (rows < first + len(part))] - first
            if len(inside):
                out.append(np.asarray(part[inside], dtype=np.float32))
                release_pages(part)
        block = np.concatenate(out)
        if self._normalize:
            block = block / np.linalg.norm(block, axis=1, keepdims=True)
        return np.ascontiguousarray(block, dtype=np.float32)

    def array(self) -> np.ndarray:
        """Every row in one array (what a caller that needs them all at once pays for)."""
        return self[0:len(self)]


def as_rows(vectors) -> VectorRows:
    """`vectors` (VectorRows, or an array) as rows."""
    return vectors if isinstance(vectors, VectorRows) else VectorRows([np.asarray(vectors)])
