"""`DiskIVFPQ`, the `ivfpq-disk` preset: IVF-PQ whose inverted lists (PQ codes + ids) live in a
file mapped into memory (faiss `OnDiskInvertedLists`), re-ranked exactly from float vectors in a
second mapped file, so neither the lists nor the full vectors are read into RAM; only the coarse
centroids and PQ tables are. Saved as a folder:

    index.faiss     the trained coarse quantiser + PQ; its lists point to lists.ivfdata
    lists.ivfdata   the inverted lists (written by `merge_from_multiple`; the Ray build merges
                    the IVF shards its workers wrote with faiss.contrib.ondisk's `merge_ondisk`)
    rerank.npy      float32 vector of chunk id i in row i (deleted ids keep their rows until
                    compact rebuilds the folder); never changed once written, so a save that
                    keeps it hard-links it from the previous version
    rerank_delta.npz  (optional) the rows added since rerank.npy was written: `ids` ascending,
                    all past its last row, and their `vectors`; folded into a new rerank.npy
                    once past `ROWS_SHARE` of it, or on `compact`

Ids stored in the lists are the chunk ids themselves (no IDMap), so an `IDSelector` of chunk ids
filters directly. Vectors added after loading go to an in-RAM `delta` (same quantiser and PQ)
and into RAM rows, searched beside the mapped lists, and merged into new files by `write`.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np
from faiss.contrib.ondisk import merge_ondisk

from common.npy import load_npy

from .disk_rows import copy_rows as _copy_rows  # tests replace it here
from .disk_rows import inode as _inode
from .disk_rows import read_row_delta as _read_row_delta
from .disk_rows import rows_file as _rows_file

INDEX, LISTS, RERANK = "index.faiss", "lists.ivfdata", "rerank.npy"
RERANK_DELTA = "rerank_delta.npz"
# rows beyond rerank.npy past this share of it: a save writes rerank.npy anew with them (as the
# vectors delta of the other presets is merged: `vector_segments.MERGE_SHARE`)
ROWS_SHARE = 0.08
EMPTY_LISTS_BYTES = 4096  # the lists file of an index with no vectors (every document deleted)


@dataclass
class DiskParams:
    """Search knobs: `nprobe` lists visited, `rerank`·k PQ candidates re-ranked exactly, `sel`
    (a faiss IDSelector of chunk ids) restricting what may be returned."""

    nprobe: int
    rerank: int
    sel: faiss.IDSelector | None = None


class DiskIVFPQ:
    """The faiss-like surface the store, search and changes use: `ntotal`, `is_trained`, `d`,
    `nlist`, `train`, `add_with_ids`, `search`, `reconstruct`; `write`/`read` a folder."""

    def __init__(self, ivf: faiss.IndexIVFPQ, rows: np.ndarray | None = None,
                 rows_file: Path | None = None) -> None:
        self.ivf = ivf  # lists on disk once read; empty while a fresh index is being built
        self.d = ivf.d
        self._rows = rows if rows is not None else np.empty((0, ivf.d), np.float32)
        # the rerank.npy `_rows` maps and its (device, inode): what a save links (None: write)
        self._rows_file = rows_file
        self._rows_key = _inode(rows_file) if rows_file is not None else None
        self.delta: faiss.IndexIVFPQ | None = None  # vectors added since read, in RAM
        # the rows beyond `_rows` (rerank_delta.npz's, then those added since read) as (ids
        # ascending, vectors), a piece per add, joined into one when read: a build adding 1M
        # vectors in batches re-copied every earlier batch at each one
        self._pieces: list[tuple[np.ndarray, np.ndarray]] = []
        self.fold_rows = False  # the next `write` writes every row into a new rerank.npy

    @classmethod
    def create(cls, factory: str, dim: int) -> DiskIVFPQ:
        """An untrained index from an `IVF{nlist},PQ{m}x{bits}` factory string (inner product)."""
        ivf = _owned(faiss.index_factory(dim, factory, faiss.METRIC_INNER_PRODUCT))
        ivf.do_polysemous_training = False  # serves Hamming filtering, which search never uses
        return cls(ivf)

    # -- the faiss-like surface ----------------------------------------------------------------
    @property
    def ntotal(self) -> int:
        return int(self.ivf.ntotal) + (int(self.delta.ntotal) if self.delta is not None else 0)

    @property
    def is_trained(self) -> bool:
        return bool(self.ivf.is_trained)

    @property
    def nlist(self) -> int:
        return int(self.ivf.nlist)

    def train(self, x: np.ndarray) -> None:
        self.ivf.train(np.ascontiguousarray(x, dtype=np.float32))

    def add_with_ids(self, x: np.ndarray, ids: np.ndarray) -> None:
        """Add vectors under chunk ids larger than every id the mapped rows hold."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        ids = np.asarray(ids, dtype=np.int64)
        last = self._pieces[-1][0] if self._pieces else ()
        if len(ids) and (ids.min() < len(self._rows) or len(last) and ids.min() <= last[-1]):
            raise ValueError("ivfpq-disk takes new chunk ids only, in ascending order")
        if self.delta is None:
            self.delta = self._empty_like()
        self.delta.add_with_ids(x, ids)
        order = np.argsort(ids, kind="stable")
        if len(ids):
            self._pieces.append((ids[order], x[order]))

    def _extras(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids ascending, vectors) of the rows beyond the rows file: its delta file's and
        those added since the files were read."""
        if not self._pieces:
            return np.empty(0, np.int64), np.empty((0, self.d), np.float32)
        if len(self._pieces) > 1:
            self._pieces = [(np.concatenate([p[0] for p in self._pieces]),
                             np.concatenate([p[1] for p in self._pieces]))]
        return self._pieces[0]

    @property
    def _extra_ids(self) -> np.ndarray:
        return self._extras()[0]

    @property
    def _extra(self) -> np.ndarray:
        return self._extras()[1]

    def has_row_delta(self) -> bool:
        """Whether rows lie beyond the rows file (what `compact` folds into it)."""
        return bool(self._pieces)

    def emptied(self) -> DiskIVFPQ:
        """A new index with this one's training and no vectors (nor rows)."""
        return DiskIVFPQ(self._empty_like())

    def _empty_like(self) -> faiss.IndexIVFPQ:
        """An in-RAM index with this one's trained quantiser and PQ, and no vectors."""
        empty = faiss.ArrayInvertedLists(self.ivf.nlist, self.ivf.code_size)
        with _lists_swapped(self.ivf, empty, 0):
            # a deep copy (clone_index shares the lists of an IVF index)
            return _owned(faiss.deserialize_index(faiss.serialize_index(self.ivf)))

    def reconstruct(self, i: int) -> np.ndarray:
        return self.vectors_of(np.asarray([i], dtype=np.int64))[0]

    def vectors_of(self, ids: np.ndarray) -> np.ndarray:
        """The float vectors of chunk ids (mapped rows, then those added since)."""
        out = np.empty((len(ids), self.d), np.float32)
        mapped = ids < len(self._rows)
        if mapped.any():
            want = ids[mapped]
            order = np.argsort(want)  # ascending reads from the mapped file
            got = np.empty((len(want), self.d), np.float32)
            got[order] = self._rows[want[order]]
            out[mapped] = got
        if (~mapped).any():
            out[~mapped] = self._extra[np.searchsorted(self._extra_ids, ids[~mapped])]
        return out

    def search(self, q: np.ndarray, k: int, params: DiskParams | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """(scores, ids), each (Q, k): PQ shortlist of rerank·k, re-ranked by exact inner
        product; missing results are id -1, score -inf."""
        q = np.ascontiguousarray(q, dtype=np.float32)
        params = params or DiskParams(nprobe=16, rerank=8)
        shortlist = max(k, k * params.rerank)
        sp = faiss.SearchParametersIVF(nprobe=min(params.nprobe, self.nlist), sel=params.sel)
        parts = [index.search(q, shortlist, params=sp)[1]
                 for index in (self.ivf, self.delta) if index is not None and index.ntotal]
        scores = np.full((len(q), k), -np.inf, np.float32)
        ids = np.full((len(q), k), -1, np.int64)
        if not parts:
            return scores, ids
        found = np.hstack(parts)  # (Q, shortlist · parts)
        for row in range(len(q)):
            cand = found[row][found[row] >= 0]  # ids are unique across ivf and delta
            if not len(cand):
                continue
            # einsum, not BLAS: OpenBLAS's threads, waiting on cores FAISS's OpenMP threads still
            # spin on, made this product of ~1,600 rows take ms (a hybrid's depth: 4x its time)
            exact = np.einsum("ij,j->i", self.vectors_of(cand), q[row])
            top = np.lexsort((cand, -exact))[:k]  # best first; ties by id, as exact search
            scores[row, : len(top)], ids[row, : len(top)] = exact[top], cand[top]
        return scores, ids

    # -- files ---------------------------------------------------------------------------------
    def write(self, folder: Path) -> None:
        """Write the index as `folder` (new): lists merged from the mapped ones and `delta`;
        rows as the mapped rows file hard-linked (never written into: the published version
        shares it) and the rows beyond it in a delta file, or, past `ROWS_SHARE` of it, on
        `fold_rows` or without a file to link, as one new float32 array indexed by chunk id.
        Then serve from the new files."""
        folder.mkdir()
        sources = [ix.invlists for ix in (self.ivf, self.delta) if ix is not None]
        with _quiet():
            lists = faiss.OnDiskInvertedLists(self.ivf.nlist, self.ivf.code_size,
                                              str(folder / LISTS))
        vector = faiss.InvertedListsPtrVector()
        for src in sources:
            vector.push_back(src)
        with _quiet():
            if self.ntotal:
                ntotal = lists.merge_from_multiple(vector.data(), vector.size(), False)
            else:  # no vectors: a file of 0 bytes cannot be mapped, so give it one page
                ntotal = 0
                lists.update_totsize(EMPTY_LISTS_BYTES)
        with _lists_swapped(self.ivf, lists, ntotal):
            faiss.write_index(self.ivf, str(folder / INDEX))
        del lists
        ids, extra = self._extras()
        whole = self.fold_rows or self._rows_file is None or \
            len(ids) > ROWS_SHARE * len(self._rows)
        if whole or not self._link_rows(folder / RERANK):
            n_rows = int(max(len(self._rows), ids[-1] + 1 if len(ids) else 0))
            with _rows_file(folder / RERANK, n_rows, self.d) as rows:
                _copy_rows(rows, 0, self._rows)
                rows[len(self._rows) :] = 0.0
                if len(ids):
                    rows[ids] = extra
        elif len(ids):
            with open(folder / RERANK_DELTA, "wb") as fh:
                np.savez(fh, ids=ids, vectors=extra)
        fresh = DiskIVFPQ.read(folder)
        self.ivf, self._rows, self.delta = fresh.ivf, fresh._rows, None
        self._rows_file, self._rows_key = fresh._rows_file, fresh._rows_key
        self._pieces, self.fold_rows = fresh._pieces, False

    def _link_rows(self, to: Path) -> bool:
        """Hard-link the mapped rows file as `to`; False where it cannot be (its version was
        pruned meanwhile, a file system without links): the rows are then written anew."""
        try:
            os.link(self._rows_file, to)
        except OSError:
            return False
        if _inode(to) != self._rows_key:  # not the file mapped: never serve other rows
            to.unlink()
            return False
        return True

    def published(self, folder: Path) -> None:
        """The folder this index was written as now lies at `folder` (its version published):
        the next save links its rows file from there."""
        self._rows_file = folder / RERANK

    @classmethod
    def merge(cls, trained: Path, shards: list[Path], rows: list[np.ndarray], folder: Path,
              seconds: dict[str, float] | None = None) -> DiskIVFPQ:
        """Write the index as `folder` (new) from IVF shard files, each `trained` (an empty
        trained index file) with some vectors added under their chunk ids: their lists merged on
        disk by `faiss.contrib.ondisk.merge_ondisk`; `rows`: the float vectors of chunk ids 0, 1,
        ... in order, in pieces (memory-mapped arrays stay on disk). Then map it. `seconds`
        receives the time of each part (`lists_s`, `rows_s`)."""
        seconds = {} if seconds is None else seconds
        clock = time.perf_counter()
        folder.mkdir()
        with _quiet():
            ivf = faiss.read_index(str(trained))
            # the shards' lists stay mapped (merge_ondisk does not free them) until exit
            merge_ondisk(ivf, [str(s) for s in shards], str(folder / LISTS))
            faiss.write_index(ivf, str(folder / INDEX))
        d = ivf.d
        del ivf
        seconds["lists_s"], clock = time.perf_counter() - clock, time.perf_counter()
        with _rows_file(folder / RERANK, sum(len(r) for r in rows), d) as out:
            at = 0
            for piece in rows:
                _copy_rows(out, at, piece)
                at += len(piece)
        seconds["rows_s"] = time.perf_counter() - clock
        return cls.read(folder)

    @classmethod
    def read(cls, folder: Path) -> DiskIVFPQ:
        """Map a folder `write` made; its lists file is found beside `index.faiss`."""
        for name in (INDEX, LISTS, RERANK):
            if not (folder / name).is_file():
                raise FileNotFoundError(f"{folder / name} is missing")
        flags = faiss.IO_FLAG_ONDISK_SAME_DIR | faiss.IO_FLAG_READ_ONLY
        with _quiet():
            ivf = _owned(faiss.read_index(str(folder / INDEX), flags))
        # faiss starts prefetch threads on every search by default; measured here they cost
        # ~2.6 ms a query against 0.14 ms without (30k vectors, warm page cache)
        faiss.downcast_InvertedLists(ivf.invlists).prefetch_nthread = 0
        rows = load_npy(folder / RERANK)
        if rows.dtype != np.float32 or rows.ndim != 2 or rows.shape[1] != ivf.d:
            raise ValueError(f"{folder / RERANK} holds {rows.dtype} {rows.shape}, not float32 "
                             f"rows of {ivf.d}")
        index = cls(ivf, rows, folder / RERANK)
        if (folder / RERANK_DELTA).is_file():
            index._pieces = [_read_row_delta(folder / RERANK_DELTA, len(rows), ivf.d)]
        return index


@contextmanager
def _quiet() -> Iterator[None]:
    """Standard output silenced: faiss prints each on-disk list file it resizes or finds
    (printf), which would land in the CLI's results."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        ctypes.CDLL(None).fflush(None)  # what printf buffered goes to /dev/null too
        os.dup2(saved, 1)
        os.close(saved)


@contextmanager
def _lists_swapped(ivf: faiss.IndexIVF, lists: faiss.InvertedLists, ntotal: int) -> Iterator[None]:
    """`ivf` with `lists` (not owned) in place of its own for a moment, which stay alive."""
    own, old, old_ntotal = ivf.own_invlists, ivf.invlists, ivf.ntotal
    ivf.own_invlists = False  # or replace_invlists would delete them
    ivf.replace_invlists(lists, False)
    ivf.ntotal = ntotal
    try:
        yield
    finally:
        ivf.replace_invlists(old, own)
        ivf.ntotal = old_ntotal


def _owned(index: faiss.Index) -> faiss.IndexIVFPQ:
    """`index` as its concrete class, owning the C++ object (a bare downcast does not)."""
    ivf = faiss.downcast_index(index)
    index.this.disown()
    ivf.this.acquire()
    return ivf


def is_disk_folder(path: str | os.PathLike) -> bool:
    return (Path(path) / INDEX).is_file()
