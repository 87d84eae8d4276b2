"""`.npy` reads that threads may share. numpy parses each file's header with `ast.literal_eval`,
and on CPython 3.11 the `ast` module keeps one recursion counter for all threads: two threads
parsing at once can fail with `SystemError: AST constructor recursion depth mismatch`
(cpython gh-106905). Three writers opening one index in threads hit it about once in 30 tries.
Every `.npy` read on the way to opening an index goes through `NPY_LOCK`; only the header
parse needs it, and a mapped read does little else."""

from __future__ import annotations

import mmap
import threading
from pathlib import Path

import numpy as np

NPY_LOCK = threading.Lock()  # also held around libraries that call np.load themselves (bm25s)


def load_npy(path: str | Path, *, mapped: bool = True) -> np.ndarray:
    """The array saved at `path` (never pickled objects); `mapped`: read as it is touched."""
    with NPY_LOCK:
        return np.load(path, mmap_mode="r" if mapped else None, allow_pickle=False)


def read_rows(array: np.ndarray, first: int, stop: int) -> np.ndarray:
    """Rows `first:stop` of `array` as a new float32 array. Of a mapped file the pages just read
    are given back (`MADV_DONTNEED`: they stay in the page cache, out of this process's memory),
    so a pass over a file of a million vectors holds one slice of it, not the file."""
    part = np.array(array[first:stop], dtype=np.float32)
    release_pages(array, first, stop)
    return part


def release_pages(array: np.ndarray, first: int = 0, stop: int | None = None) -> None:
    """Give back the mapped pages under rows `first:stop` of `array` (all rows: `stop=None`);
    nothing for an array in memory. A later read maps them again from the page cache."""
    mapping = getattr(array, "_mmap", None)  # np.memmap's own mmap, shared by its views
    stop = len(array) if stop is None else min(stop, len(array))
    if mapping is None or stop <= first or not array.flags.c_contiguous:
        return
    origin = np.frombuffer(mapping, dtype=np.uint8).ctypes.data
    row = array.strides[0]
    begin = array.ctypes.data - origin + first * row
    end = array.ctypes.data - origin + stop * row
    page = mmap.PAGESIZE
    lo, hi = begin // page * page, min(-(-end // page) * page, len(mapping))
    if hi > lo:
        mapping.madvise(mmap.MADV_DONTNEED, lo, hi - lo)
