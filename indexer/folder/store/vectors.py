"""The vectors file of a version: a FAISS index file, or for `ivfpq-disk` a folder of mapped
files (`diskivf`). Read and written only here and through the store's publishing."""

from __future__ import annotations

import shutil
from pathlib import Path

import faiss

from ...diskivf import DiskIVFPQ


def read_vectors(path: Path, *, mapped: bool = False) -> faiss.Index | DiskIVFPQ:
    """The index at `path`. `mapped`: its flat vectors (Flat, SQ8, HNSW's storage, a refine's
    rows) are mapped from the file, not read into RAM: an HNSW index of 1M chunks opens in a
    blink and holds only the pages searches touch, but must never be changed (faiss aborts
    the process on an add or a removal): writers read their own copy (`mapped=False`)."""
    if path.is_dir():
        return DiskIVFPQ.read(path)
    return faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC if mapped else 0)


def owned_copy(index: faiss.Index | DiskIVFPQ) -> faiss.Index | DiskIVFPQ:
    """A copy of a mapped `index` held in RAM, which a writer may change. Made from the mapping
    (still readable when a newer version has removed the file), not from the file. A disk IVF
    index writes its additions apart from its mapped lists: it is its own copy."""
    if isinstance(index, DiskIVFPQ):
        return index
    return faiss.deserialize_index(faiss.serialize_index(index))


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
