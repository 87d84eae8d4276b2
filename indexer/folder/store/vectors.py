"""The vectors file of a version: a FAISS index file, or for `ivfpq-disk` a folder of mapped
files (`diskivf`). Read and written only here and through the store's publishing."""

from __future__ import annotations

import shutil
from pathlib import Path

import faiss

from ...diskivf import DiskIVFPQ


def read_vectors(path: Path) -> faiss.Index | DiskIVFPQ:
    return DiskIVFPQ.read(path) if path.is_dir() else faiss.read_index(str(path))


def write_vectors(index: faiss.Index | DiskIVFPQ, path: Path) -> faiss.Index | DiskIVFPQ:
    """Write `index` at `path`, replacing what an earlier, failed attempt left there; returns
    it."""
    if isinstance(index, DiskIVFPQ):
        if path.is_dir():
            shutil.rmtree(path)
        index.write(path)  # and serves from the new files from now on
    else:
        faiss.write_index(index, str(path))
    return index
