"""`WorkingCopy`: a writer's private copy of one published version. SQLite is copied into the
writer's staging folder and changed there, in transactions; the vectors (`VectorSegments`: the
published base, shared and never changed, and a delta of the chunks added since) are changed in
memory, as the last step of each transaction, so a failure in either half leaves both as they
were. Every change is logged, with its vectors, so that the same changes can be made again on a
newer version when another writer publishes first."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from common.bm25_segments import SegmentedLexical
from common.lexical import LexicalIndex, tokenize

from ..chunking import Chunk
from ..documents import Document
from ..errors import ConcurrentWriteError
from ..presets import Spec, create, emptied, train_and_add, training_needs
from ..validation import check_field_kinds
from . import db, field_kinds
from .columns import Columns, chunk_id_end
from .store import Staging, VectorSegments


class WorkingCopy:
    def __init__(self, folder: Path, source: sqlite3.Connection, vectors: VectorSegments,
                 spec: Spec, dim: int, fields: dict[str, str],
                 counts: Counter[tuple[str, str]] | None = None) -> None:
        self.staging = Staging(folder)
        try:
            self._conn: sqlite3.Connection | None = db.open_writable(
                self.staging.file("sqlite"), source=source)
        except BaseException:  # a full disk mid-copy, say: no half-made staging folder stays
            self.staging.discard()
            raise
        self.vectors = vectors  # the writer's (`for_writer`), changed in place from now on
        self.merge = False  # whether the save writes a new base (set by `compact`)
        self.spec = spec
        self.dim = dim
        self.fields = dict(fields)  # metadata field kinds, kept as documents are written
        # documents per (field, JSON type), kept as documents are written: what the next
        # version's field kinds are read from (counted here once when the version lacks them)
        self.counts = Counter(counts) if counts is not None else field_kinds.kind_counts(self._conn)
        # ("add" | "upsert", (docs, chunks, vectors)), ("delete", ids found), ("compact", None)
        self.log: list[tuple[str, object]] = []
        # what `extend` needs to derive the next filter index from this version's: where the
        # copied store's chunk ids end, the chunk ids deleted since, and whether that holds
        self.start = chunk_id_end(self._conn)
        self.dropped: list[np.ndarray] = []
        self.extendable = True  # False once compacted or replayed: `Columns.build` then

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:  # closed by `stage`; a failed publish goes on from here
            self._conn = db.open_writable(self.staging.file("sqlite"))
        return self._conn

    # -- changes -------------------------------------------------------------------------------
    def add(self, docs: list[Document], chunks: list[Chunk], vectors: np.ndarray) -> int:
        """Add new documents with their chunks' vectors; ids already present are refused."""
        self._change([], docs, chunks, vectors, new_only=True)
        self.log.append(("add", (docs, chunks, vectors)))
        return len(chunks)

    def upsert(self, docs: list[Document], chunks: list[Chunk], vectors: np.ndarray) -> int:
        """Add documents, replacing those with the same ids, in one step."""
        self._change([d.id for d in docs], docs, chunks, vectors, new_only=False)
        self.log.append(("upsert", (docs, chunks, vectors)))
        return len(chunks)

    def delete(self, doc_ids: Sequence[str]) -> list[str]:
        """Delete the documents that exist among `doc_ids`; returns their ids."""
        found = self._change(list(doc_ids), [], [], np.empty((0, self.dim), np.float32), False)
        if found:
            self.log.append(("delete", found))
        return found

    def _change(self, delete: list[str], docs: list[Document], chunks: list[Chunk],
                vectors: np.ndarray, new_only: bool) -> list[str]:
        """Delete `delete` (those present), then add `docs`: SQL in one transaction, FAISS
        last inside it, so that a failure anywhere leaves SQLite and FAISS as they were. A
        value that would change a metadata field's kind is refused before anything changes."""
        fields = check_field_kinds(docs, self.fields)
        with db.transaction(self.conn) as conn:
            found = db.existing_ids(conn, delete) if delete else []
            old = np.asarray(db.chunk_ids_of(conn, found), dtype=np.int64)
            fresh = self.vectors.in_delta(old)  # added since the base: removed exactly
            counts = self.counts.copy()
            if found:
                counts.subtract(field_kinds.kind_counts(conn, found))
                db.delete_documents(conn, found)
                if not _removable(self.spec) and not fresh.all():  # HNSW / refine cannot
                    db.add_tombstones(conn, old[~fresh])  # remove: tombstones, filtered out
            new = np.empty(0, dtype=np.int64)
            if docs:
                taken = db.existing_ids(conn, [d.id for d in docs]) if new_only else []
                if taken:
                    raise ValueError(f"{len(taken)} document ids already exist (e.g. "
                                     f"{taken[0]!r}): use upsert() to replace them")
                first = db.next_chunk_id(conn)
                new = np.arange(first, first + len(chunks), dtype=np.int64)
                db.insert_documents(conn, docs)
                counts.update(field_kinds.kind_counts(conn, [d.id for d in docs]))
                db.insert_chunks(conn, ((int(i), c.doc_id, c.chunk_no, c.start, c.end,
                                         " ".join(tokenize(c.encoded)))
                                        for i, c in zip(new, chunks, strict=True)))
                db.set_next_chunk_id(conn, first + len(chunks))
            before = self.vectors.ntotal
            try:
                if len(new):
                    train_and_add(self.vectors, vectors, new)
                if len(old) and _removable(self.spec):
                    _remove(self.vectors, old)
                elif fresh.any():
                    self.vectors.forget(old[fresh])
            except BaseException:
                if self.vectors.ntotal > before:
                    self.vectors.forget(new)
                raise
        self.fields = fields
        self.counts = +counts  # only what some document holds
        if len(old):
            self.dropped.append(old)
        return found

    def compact(self) -> int:
        """Rebuild the FAISS index from live vectors, dropping tombstones; returns how many.
        Without tombstones, the save merges the delta into a new base instead."""
        dropped = len(self.tombstones())
        if not dropped:
            self.merge = self.vectors.has_changes()
            if self.merge:
                self.log.append(("compact", None))
            return 0
        live = np.asarray(db.live_chunk_ids(self.conn), dtype=np.int64)
        vecs = self.vectors.vectors_of(live, owned=True) if len(live) else \
            np.empty((0, self.dim), dtype=np.float32)
        fresh = create(self.spec, self.dim)
        if len(live) < training_needs(fresh):  # too few left to train on: keep the training
            fresh = emptied(self.vectors.base)
        if len(live):
            train_and_add(fresh, vecs, live)
        with db.transaction(self.conn) as conn:
            db.clear_tombstones(conn)
        self.vectors = VectorSegments(fresh)
        self.log.append(("compact", None))
        self.extendable = False
        return dropped

    def tombstones(self) -> np.ndarray:
        return np.asarray(db.tombstones(self.conn), dtype=np.int64)

    def replay(self, other: WorkingCopy) -> None:
        """Make this copy's changes again on `other` (a copy of a newer version)."""
        other.extendable = False
        for kind, arg in self.log:
            if kind == "delete":
                other.delete(arg)
            elif kind == "compact":
                other.compact()
            elif kind == "upsert":
                other.upsert(*arg)
            else:
                taken = db.existing_ids(other.conn, [d.id for d in arg[0]])
                if taken:
                    raise ConcurrentWriteError(
                        f"another writer added document {taken[0]!r} to "
                        f"{other.staging.path.parent} meanwhile ({len(taken)} such ids); nothing "
                        "was saved: reopen the index and apply the changes again (upsert() "
                        "replaces documents)")
                other.add(*arg)

    def deleted(self) -> np.ndarray:
        """The chunk ids this copy deleted."""
        return np.concatenate(self.dropped) if self.dropped else np.empty(0, dtype=np.int64)

    # -- publication -------------------------------------------------------------------------
    def stage(self, lexical: LexicalIndex, columns: Columns, published_bm25: Path) -> None:
        """Write the FAISS, BM25 and filter-index files beside the SQLite copy, and close the
        copy. BM25 segments unchanged since the published version are hard links to its files."""
        if self.merge or self.vectors.due():
            self.vectors.merge()
            self.merge = False
        self.vectors.save(self.staging.file("faiss"), self.staging.file("faiss_delta"))
        for role, part in (("bm25", lexical), ("fields", columns)):
            folder = self.staging.file(role)
            if folder.exists():  # from an earlier save that failed
                shutil.rmtree(folder)
            if isinstance(part, SegmentedLexical):
                part.save(folder, published_bm25)
            else:
                part.save(folder)
        self.close()

    def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()

    def discard(self) -> None:
        self.close()
        self.staging.discard()


def _removable(spec: Spec) -> bool:
    # not IVF behind IDMap2 ("ivf"): FAISS's IndexIDMap.remove_ids shifts its id map as if the
    # index below renumbered its vectors, which an IVF does not, so every later label maps to
    # another chunk's id (ids 1050 -> 1052 after two removals; the last ones -1): tombstones
    return spec.preset not in ("hnsw", "ivf", "ivfpq", "ivfpq-disk")


def _remove(vectors: VectorSegments, ids: np.ndarray) -> None:
    """Remove `ids` (a removable preset's): from the delta, and hidden in the base until the
    next merge removes them from it."""
    removed = vectors.remove(ids)
    assert removed == len(ids), (removed, len(ids))
