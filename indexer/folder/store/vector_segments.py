"""`VectorSegments`: a version's vectors as a base FAISS index (mapped read-only, never changed:
a save that keeps it hard-links its file into the new version) and a small exact delta (the
vectors added since, in an `IndexIDMap2` over a flat index of the base's metric, saved as one
small file), plus the base chunk ids a removable preset deleted (hidden until the next merge).
Chunks deleted from the base of a preset that cannot remove stay tombstones in SQLite, as before.
A save merges the delta into a new base (an owned copy of the old one: the cost of a whole write,
paid rarely) once it passes `MERGE_SHARE` of the base, when there is no base, or on `compact`.
An `ivfpq-disk` base writes its additions apart from its mapped lists: it takes them itself, and
keeps its own rows delta beside its linked rows file (`diskivf`), folded by `compact` too."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import faiss
import numpy as np

from ...diskivf import DiskIVFPQ
from ...presets import find_inner, train_and_add
from .vectors import owned_copy, read_vectors, write_vectors

MERGE_SHARE = 0.08  # a delta (added + hidden) past this share of the base is merged by a save
DELTA_FILE = "vectors_delta.npz"


# FAISS methods that change an index in place: never passed through to the mapped base
_WRITES = frozenset({"add", "add_c", "add_core", "add_preassigned", "remove_ids", "reset",
                     "merge_from", "update_vectors", "replace_invlists", "make_direct_map"})


class VectorSegments:
    """What callers need of a version's vectors: `ntotal`, `d`, `search`, `reconstruct`,
    `reconstruct_batch`, `add_with_ids` / `is_trained` / `train` (a writer's), `remove`."""

    def __init__(self, base: faiss.Index | DiskIVFPQ, delta: faiss.Index | None = None,
                 hidden: np.ndarray | None = None, base_path: Path | None = None) -> None:
        self.base = base
        self.base_path = base_path  # the file `base` was read from (None: changed since)
        self.delta = delta if delta is not None else self._empty_delta()
        self.hidden = np.empty(0, np.int64) if hidden is None else np.asarray(hidden, np.int64)
        self._ids: np.ndarray | None = None  # the delta's ids, sorted (cached)

    # -- reading -------------------------------------------------------------------------------
    @classmethod
    def load(cls, base_path: Path, delta_path: Path | None) -> VectorSegments:
        """A version's vectors: `base_path` mapped, the delta file (None: base only) read."""
        segments = cls(read_vectors(base_path, mapped=True), base_path=base_path)
        if delta_path is not None:
            with np.load(delta_path) as data:
                vecs, ids, hidden = data["vectors"], data["ids"], data["hidden"]
            if len(ids):
                segments.delta.add_with_ids(np.ascontiguousarray(vecs, np.float32), ids)
            segments.hidden = np.asarray(hidden, np.int64)
        return segments

    def __getattr__(self, name: str):
        """What else the base has to read (a disk IVF index's `nlist`, say). Never a FAISS
        method that changes it: the base is mapped, and faiss aborts the process on a write to
        it; writes go through this class's own `add_with_ids`, `remove`, `merge`."""
        if name in ("base", "delta", "hidden", "base_path", "_ids") or name in _WRITES:
            raise AttributeError(f"{type(self).__name__} has no {name!r}" + (
                ": writes go to the delta (add_with_ids, remove, merge)" if name in _WRITES
                else ""))
        return getattr(self.base, name)

    @property
    def d(self) -> int:
        return int(self.base.d)

    @property
    def ntotal(self) -> int:
        """Vectors searchable: the base's (less those hidden) and the delta's."""
        return int(self.base.ntotal) - len(self.hidden) + int(self.delta.ntotal)

    @property
    def is_trained(self) -> bool:
        return bool(self.base.is_trained)

    def has_changes(self) -> bool:
        """Whether a delta or hidden base chunks exist, or rows beyond an `ivfpq-disk` base's
        rows file (what `compact` folds into the base)."""
        return self._has_delta() or isinstance(self.base, DiskIVFPQ) and \
            self.base.has_row_delta()

    def _has_delta(self) -> bool:
        return bool(self.delta.ntotal or len(self.hidden))

    def search(self, x: np.ndarray, k: int, *, params=None, sel=None
               ) -> tuple[np.ndarray, np.ndarray]:
        """The base searched with `params`, the delta exactly with `sel` (the chunk ids
        allowed, untranslated), merged by score; best first, -1 ids where fewer are found."""
        scores, ids = self.base.search(x, k, params=params)
        if not self.delta.ntotal:
            return scores, ids
        dparams = faiss.SearchParameters(sel=sel) if sel is not None else None
        dscores, dids = self.delta.search(x, min(k, int(self.delta.ntotal)), params=dparams)
        return _merged(scores, ids, dscores, dids, k, self._larger_is_better())

    def reconstruct_batch(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, np.int64)
        mine = self._in_delta(ids)
        out = np.empty((len(ids), self.d), np.float32)
        if mine.any():
            out[mine] = self.delta.reconstruct_batch(ids[mine])
        if (~mine).any():
            out[~mine] = self.base.reconstruct_batch(ids[~mine]) \
                if hasattr(self.base, "reconstruct_batch") else \
                np.vstack([self.base.reconstruct(int(i)) for i in ids[~mine]])
        return out

    def reconstruct(self, i: int) -> np.ndarray:
        return self.reconstruct_batch(np.array([i], np.int64))[0]

    def vectors_of(self, ids: np.ndarray, *, owned: bool = False) -> np.ndarray | None:
        """The stored vectors of `ids`; None where the base cannot give them back (an IVF list
        without a direct map) unless `owned`: then read from an owned copy of the base."""
        if isinstance(self.base, DiskIVFPQ):
            return self.base.vectors_of(ids)
        try:
            return self.reconstruct_batch(ids)
        except RuntimeError:
            if not owned:
                return None
        base = _directly_mapped(owned_copy(self.base))
        return VectorSegments(base, self.delta, self.hidden).reconstruct_batch(ids)

    # -- a writer's changes -------------------------------------------------------------------
    def for_writer(self) -> VectorSegments:
        """A copy a writer may change: the base shared (never changed in place), the delta
        copied (small). A disk IVF index is its own copy, as before; an untrained (hence empty)
        base is copied, to be trained by the writer's first add."""
        delta = faiss.clone_index(self.delta) if self.delta.ntotal else None
        owned = isinstance(self.base, DiskIVFPQ) or not self.base.is_trained
        return VectorSegments(owned_copy(self.base) if owned else self.base, delta,
                              self.hidden.copy(), None if owned else self.base_path)

    def train(self, vectors: np.ndarray) -> None:
        self.base.train(vectors)  # an owned, empty base (`for_writer`)
        self.base_path = None

    def add_with_ids(self, vectors: np.ndarray, ids: np.ndarray) -> None:
        if isinstance(self.base, DiskIVFPQ):
            self.base.add_with_ids(vectors, ids)
            self.base_path = None
        else:
            self.delta.add_with_ids(np.ascontiguousarray(vectors, np.float32), ids)
            self._ids = None

    def in_delta(self, ids: np.ndarray) -> np.ndarray:
        """Per id: whether it is in the delta (removed from it exactly, never a tombstone)."""
        return self._in_delta(np.asarray(ids, np.int64))

    def remove(self, ids: np.ndarray) -> int:
        """Remove `ids`: from the delta, and hide those of the base. Returns how many."""
        ids = np.asarray(ids, np.int64)
        mine = self._in_delta(ids)
        removed = self.forget(ids[mine]) if mine.any() else 0
        base = ids[~mine]
        self.hidden = np.union1d(self.hidden, base)
        return removed + len(base)

    def forget(self, ids: np.ndarray) -> int:
        """Remove `ids` from the delta (those added by a change that failed, say)."""
        self._ids = None
        return int(self.delta.remove_ids(faiss.IDSelectorBatch(np.asarray(ids, np.int64))))

    def replace_base(self, base: faiss.Index | DiskIVFPQ) -> None:
        """Make `base` (a compacted index, holding every live vector) the only segment."""
        self.base, self.base_path = base, None
        self.delta, self.hidden, self._ids = self._empty_delta(), np.empty(0, np.int64), None

    # -- saving -------------------------------------------------------------------------------
    def due(self) -> bool:
        """Whether a save should merge the delta into a new base."""
        waiting = int(self.delta.ntotal) + len(self.hidden)
        return waiting > 0 and (self.base.ntotal == 0 or
                                waiting > MERGE_SHARE * int(self.base.ntotal))

    def merge(self) -> None:
        """Add the delta to an owned copy of the base, remove the hidden chunks from it (an
        `ivfpq-disk` base: its next write folds its rows delta into a new rows file)."""
        base = owned_copy(self.base)
        if isinstance(base, DiskIVFPQ):
            base.fold_rows = True
        if self.delta.ntotal:
            ids = np.sort(self._delta_ids())
            train_and_add(base, self.delta.reconstruct_batch(ids), ids)
        if len(self.hidden):
            base.remove_ids(faiss.IDSelectorBatch(self.hidden))
        self.replace_base(base)

    def save(self, base_file: Path, delta_file: Path) -> None:
        """Write the version's files: the base linked from its published file where unchanged
        (a copy where links fail), else written; the delta file only where there is a delta."""
        if self.base_path is None or isinstance(self.base, DiskIVFPQ):
            write_vectors(self.base, base_file)
        else:
            base_file.unlink(missing_ok=True)  # from an earlier, failed save
            try:
                os.link(self.base_path, base_file)
            except FileNotFoundError:  # its version was pruned meanwhile: written from the map
                write_vectors(self.base, base_file)
            except OSError:  # a file system without hard links
                shutil.copyfile(self.base_path, base_file)
        delta_file.unlink(missing_ok=True)
        if self._has_delta():
            ids = np.sort(self._delta_ids())
            vecs = self.delta.reconstruct_batch(ids) if len(ids) else \
                np.empty((0, self.d), np.float32)
            with open(delta_file, "wb") as fh:
                np.savez(fh, vectors=vecs, ids=ids, hidden=self.hidden)

    def published(self, base_file: Path) -> None:
        """The version is published with its base at `base_file`: read it mapped from there
        (a merged base held in RAM is let go), so the next save links it."""
        if isinstance(self.base, DiskIVFPQ):
            self.base.published(base_file)
        elif self.base_path is None:
            self.base = read_vectors(base_file, mapped=True)
        self.base_path = base_file

    # -- inside --------------------------------------------------------------------------------
    def _empty_delta(self) -> faiss.Index:
        metric = getattr(self.base, "metric_type", faiss.METRIC_INNER_PRODUCT)
        return faiss.IndexIDMap2(faiss.IndexFlat(self.d, metric))

    def _larger_is_better(self) -> bool:
        return getattr(self.base, "metric_type", faiss.METRIC_INNER_PRODUCT) != faiss.METRIC_L2

    def _delta_ids(self) -> np.ndarray:
        return faiss.vector_to_array(faiss.downcast_index(self.delta).id_map).astype(np.int64)

    def _in_delta(self, ids: np.ndarray) -> np.ndarray:
        if not self.delta.ntotal or not len(ids):
            return np.zeros(len(ids), bool)
        if self._ids is None:
            self._ids = np.sort(self._delta_ids())
        return np.isin(ids, self._ids, assume_unique=False)


def _merged(scores: np.ndarray, ids: np.ndarray, dscores: np.ndarray, dids: np.ndarray, k: int,
            larger: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the best `k` of both result lists (ties: lower id first); -1 ids padded."""
    all_scores = np.concatenate([scores, dscores], axis=1)
    all_ids = np.concatenate([ids, dids], axis=1)
    key = np.where(all_ids < 0, np.inf, -all_scores if larger else all_scores)
    order = np.lexsort((all_ids, key), axis=-1)[:, :k]
    out_s = np.take_along_axis(all_scores, order, axis=1)
    out_i = np.take_along_axis(all_ids, order, axis=1).astype(np.int64)
    if out_i.shape[1] < k:  # fewer stored than asked for
        pad = k - out_i.shape[1]
        out_s = np.pad(out_s, ((0, 0), (0, pad)), constant_values=-np.inf if larger else np.inf)
        out_i = np.pad(out_i, ((0, 0), (0, pad)), constant_values=-1)
    return out_s, out_i


def _directly_mapped(index: faiss.Index) -> faiss.Index:
    ivf = find_inner(index, faiss.IndexIVF)
    if ivf is not None and ivf.direct_map.type == faiss.DirectMap.NoMap:
        ivf.make_direct_map()
    return index
