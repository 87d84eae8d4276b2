"""The re-ranking rows of an `ivfpq-disk` index on disk: the whole `rerank.npy` written in pieces,
the delta of rows added since (`rerank_delta.npz`) read back checked, and a file's identity
(a save links the previous rows file only while it is the one opened)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from common.npy import NPY_LOCK


def read_row_delta(path: Path, first: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) of a rows delta file, checked: ids ascending from `first` on, float32
    vectors of `d`."""
    with NPY_LOCK, np.load(path, allow_pickle=False) as data:
        ids, vectors = data["ids"], data["vectors"]
    if ids.dtype != np.int64 or ids.ndim != 1 or not len(ids) or ids[0] < first or \
            (np.diff(ids) <= 0).any():
        raise ValueError(f"{path} holds no ascending int64 chunk ids past row {first}")
    if vectors.dtype != np.float32 or vectors.shape != (len(ids), d):
        raise ValueError(f"{path} holds {vectors.dtype} {vectors.shape}, not float32 rows of "
                         f"{d} for its {len(ids)} ids")
    return ids, vectors


def inode(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


@contextmanager
def rows_file(path: Path, n: int, d: int) -> Iterator[np.ndarray]:
    """A new `.npy` file of (n, d) float32 rows, mapped for writing, flushed on exit."""
    rows = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, d))
    yield rows
    rows.flush()
    del rows


def copy_rows(out: np.ndarray, at: int, rows: np.ndarray) -> None:
    """`rows` into `out[at:]`, in pieces: a mapped source is never read into RAM whole."""
    for start in range(0, len(rows), 65536):
        end = min(start + 65536, len(rows))
        out[at + start : at + end] = rows[start:end]
