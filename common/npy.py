"""`.npy` reads that threads may share. numpy parses each file's header with `ast.literal_eval`,
and on CPython 3.11 the `ast` module keeps one recursion counter for all threads: two threads
parsing at once can fail with `SystemError: AST constructor recursion depth mismatch`
(cpython gh-106905). Three writers opening one index in threads hit it about once in 30 tries.
Every `.npy` read on the way to opening an index goes through `NPY_LOCK`; only the header
parse needs it, and a mapped read does little else."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

NPY_LOCK = threading.Lock()  # also held around libraries that call np.load themselves (bm25s)


def load_npy(path: str | Path, *, mapped: bool = True) -> np.ndarray:
    """The array saved at `path` (never pickled objects); `mapped`: read as it is touched."""
    with NPY_LOCK:
        return np.load(path, mmap_mode="r" if mapped else None, allow_pickle=False)
