"""Bring your own vectors: a build whose vectors were made elsewhere (another machine, a GPU box,
another program), one row per document in corpus order. Each document is then one chunk, and the
named model only encodes queries. Every refusal comes before anything is written."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from common.npy import load_npy, read_rows

from .errors import CorpusError

ROWS_PER_CHECK = 65_536  # rows checked (and normalised) at a time: a 1M x 384 file stays mapped


def load_vectors_file(path: str | Path) -> np.ndarray:
    """The array in a `.npy` file, memory-mapped (read as rows are used, never whole), refused in
    words when it is not a 2-D float array."""
    path = Path(path)
    how = "write it with numpy.save(path, array.astype('float32'))"
    if path.is_dir():
        raise CorpusError(f"--vectors {path} is a folder; give one .npy file ({how})")
    if not path.is_file():
        raise CorpusError(f"--vectors {path}: no such file (a .npy file of one float32 row per "
                          f"document: {how})")
    with open(path, "rb") as fh:
        head = fh.read(6)
    if head.startswith(b"PK"):
        raise CorpusError(f"--vectors {path} is an .npz archive of several arrays; give one .npy "
                          f"array ({how})")
    if head != b"\x93NUMPY":
        raise CorpusError(f"--vectors {path} is not a .npy file (no numpy header); {how}")
    try:
        return load_npy(path)
    except Exception as exc:  # numpy raises several kinds for a damaged or object array
        raise CorpusError(f"--vectors {path} is not a readable float array ({exc}); "
                          f"{how}") from exc


def check_vectors(vectors, n_docs: int, dim: int, model: str, *, skipped: int = 0,
                  duplicates: int = 0) -> np.ndarray:
    """`vectors` checked against the corpus and the model: a 2-D float array of `n_docs` rows of
    `dim` finite, non-zero values; returned as float32 (a mapped file stays mapped). Row i is
    document i in corpus order, so a corpus that skipped or merged rows is refused: the rows
    would no longer line up."""
    if not isinstance(vectors, np.ndarray):
        raise TypeError(f"vectors must be a numpy array (N documents x {dim}), got "
                        f"{type(vectors).__name__}")
    if vectors.ndim != 2:
        raise CorpusError(f"vectors must be 2-D (one row per document), got shape "
                          f"{vectors.shape}")
    if not np.issubdtype(vectors.dtype, np.floating):
        raise CorpusError(f"vectors must be floats (float32), got {vectors.dtype}")
    if vectors.shape[1] != dim:
        raise CorpusError(f"vectors have {vectors.shape[1]} dimensions but {model} makes {dim}: "
                          f"name the model that made them (its queries must land in the same "
                          "space)")
    if skipped or duplicates:
        raise CorpusError(f"the corpus skipped {skipped} rows and merged {duplicates} duplicate "
                          "ids, so row i of vectors would no longer be document i: fix those "
                          "rows (or drop them and their vectors) and build again")
    if vectors.shape[0] != n_docs:
        raise CorpusError(f"vectors have {vectors.shape[0]:,} rows but the corpus has "
                          f"{n_docs:,} documents: row i must be the vector of document i")
    for first in range(0, n_docs, ROWS_PER_CHECK):
        part = read_rows(vectors, first, first + ROWS_PER_CHECK)
        bad = ~np.isfinite(part).all(axis=1)
        if bad.any():
            raise CorpusError(f"vectors row {first + int(np.argmax(bad))} holds NaN or infinity")
        zero = ~part.any(axis=1)
        if zero.any():
            raise CorpusError(f"vectors row {first + int(np.argmax(zero))} is all zeros: it has "
                              "no direction to search by")
    return vectors if vectors.dtype == np.float32 else vectors.astype(np.float32)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """The rows scaled to unit length (the index searches by cosine), a piece at a time: one new
    array, the input (possibly a mapped file) only read."""
    out = np.empty(vectors.shape, dtype=np.float32)
    for first in range(0, len(vectors), ROWS_PER_CHECK):
        part = read_rows(vectors, first, first + ROWS_PER_CHECK)
        out[first:first + len(part)] = part / np.linalg.norm(part, axis=1, keepdims=True)
    return out
