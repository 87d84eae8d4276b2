"""`SemanticIndex`: open a stored index, search it (dense, lexical, hybrid, filtered), change it
(add / upsert / delete / compact) and save a new version atomically."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from . import db, storage
from .chunking import ChunkingConfig, chunk_documents
from .documents import Document, Hit, SkippedRow
from .errors import CorruptIndexError, EncoderMismatchError, QueryError
from .filters import field_types, field_values, matching_chunks, unknown_field
from .fusion import RRF_K, rrf
from .lexical import LexicalIndex, tokenize
from .presets import Spec, check_knobs, exhaustive_knobs, search_params, train_and_add
from .stats import IndexStats

MODES = ("dense", "lexical", "hybrid")
Ranked = list[tuple[int, float]]  # (chunk id, score), best first


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class SemanticIndex:
    """One index directory, loaded. Readers share nothing with writers: changes go to a private
    copy of the store and become visible to others only through `save()`."""

    def __init__(self, folder: Path, manifest: dict, vectors: faiss.Index,
                 conn: sqlite3.Connection, lexical: LexicalIndex | None, encoder=None) -> None:
        self.folder = Path(folder)
        self.manifest = manifest
        self.vectors = vectors
        self.conn = conn
        self._lexical = lexical  # None: rebuild from the store when next needed
        self._encoder = encoder
        self._staging: Path | None = None  # private writable copy of the store, if changed
        self._dirty = False
        self.spec = Spec(manifest["preset"], manifest["faiss_spec"], manifest["knobs"])
        self._tombstones = np.asarray(db.tombstones(conn), dtype=np.int64)
        self._doc_cache: dict[int, str] = {}  # chunk id -> document id, filled as hits arrive
        self._values: dict[tuple[str, int], list | None] = {}  # field_values of the published store

    # -- opening -----------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, *, encoder=None, verify: bool = True) -> SemanticIndex:
        """Open the index at `path`. `encoder` (an `Encoder`) is checked against the one the
        index was built with; without it, that encoder is loaded on the first dense search."""
        folder = Path(path)
        last_error: Exception | None = None
        for _ in range(20):  # a writer may publish and prune between our reads: retry
            manifest = storage.read_manifest(folder)
            files = {role: folder / e["path"] for role, e in manifest["files"].items()}
            try:
                if verify:
                    storage.verify(folder, manifest)
                conn = db.open_readonly(files["sqlite"])
                vectors = faiss.read_index(str(files["faiss"]))
                lexical = LexicalIndex.load(files["bm25"])
            except (FileNotFoundError, RuntimeError, sqlite3.Error, OSError, ValueError) as exc:
                if isinstance(exc, CorruptIndexError):
                    raise
                last_error = exc
                if storage.read_manifest(folder)["version"] == manifest["version"]:
                    if not all(p.exists() for p in files.values()):
                        raise CorruptIndexError(f"{folder}: {exc}; rebuild the index") from exc
                    raise CorruptIndexError(f"{folder}: cannot read the index ({exc}); "
                                            "rebuild it with `python -m indexer build`") from exc
                time.sleep(0.01)
                continue
            index = cls(folder, manifest, vectors, conn, lexical)
            if encoder is not None:
                index._check_encoder(encoder)
                index._encoder = encoder
            return index
        raise CorruptIndexError(f"{folder} kept changing while opening it ({last_error})")

    @classmethod
    def build(cls, corpus, out: str | Path, **kwargs) -> SemanticIndex:
        """Same as `indexer.build_index(corpus, out, **kwargs)`."""
        from .build import build_index

        return build_index(corpus, out, **kwargs)

    def _check_encoder(self, encoder) -> None:
        want = self.manifest["encoder"]
        if encoder.fingerprint != want["fingerprint"]:
            raise EncoderMismatchError(
                f"this index needs encoder {want['name']!r} (fingerprint "
                f"{want['fingerprint'][:12]}), not {encoder.name!r} ({encoder.fingerprint[:12]}): "
                f"open it with encoder=load_encoder({want['load_as']!r}), or rebuild the index "
                f"with {encoder.name!r}"
            )

    @property
    def encoder(self):
        if self._encoder is None:
            from encoder import load_encoder

            enc = load_encoder(self.manifest["encoder"]["load_as"])
            self._check_encoder(enc)
            self._encoder = enc
        return self._encoder

    # -- reading -----------------------------------------------------------------------------
    @property
    def knobs(self) -> dict[str, int]:
        """Search knobs this index's preset takes, with their defaults."""
        return dict(self.spec.knobs)

    def stats(self) -> IndexStats:
        m = self.manifest
        counts = db.counts(self.conn)
        return IndexStats(
            path=str(self.folder), documents=counts["documents"], chunks=counts["chunks"],
            tombstones=counts["tombstones"], model=m["encoder"]["name"],
            fingerprint=m["encoder"]["fingerprint"], preset=m["preset"],
            faiss_spec=m["faiss_spec"], dim=m["dim"],
            size_bytes=sum(e["bytes"] for e in m["files"].values()),
            built_at=m["built_at"], updated_at=m["updated_at"], version=m["version"],
            duplicates=m["duplicates"], skipped=[SkippedRow(**s) for s in m["skipped"]],
            metadata_fields=dict(m["metadata_fields"]), chunking=dict(m["chunking"]),
            knobs=self.knobs, source=m.get("source", ""),
        )

    def __len__(self) -> int:
        return db.counts(self.conn)["documents"]

    def document(self, doc_id: str) -> Document:
        doc = db.document(self.conn, doc_id)
        if doc is None:
            raise KeyError(f"no document {doc_id!r} in {self.folder}")
        return doc

    def search(
        self,
        queries: str | Sequence[str],
        k: int = 10,
        *,
        mode: str = "dense",
        filter: dict[str, Any] | None = None,  # noqa: A002 - the documented name
        per_chunk: bool = False,
        rrf_k: int = RRF_K,
        weights: tuple[float, float] = (1.0, 1.0),
        **knobs: int,
    ) -> list[Hit] | list[list[Hit]]:
        """Top-`k` hits for one query (→ list[Hit]) or many (→ one list per query, one batch).

        Hits are per document (its best chunk) unless `per_chunk`. `mode`: dense (FAISS),
        lexical (BM25) or hybrid (reciprocal-rank fusion of both, `rrf_k`, `weights` =
        (dense, lexical)). `filter` restricts to documents whose metadata match. `knobs`:
        nprobe / efSearch / rerank where the preset takes them (see `knobs`).
        """
        single = isinstance(queries, str)
        items = _check_queries([queries] if single else queries)
        if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
            raise QueryError(f"k must be a positive integer, got {k!r}")
        if mode not in MODES:
            raise QueryError(f"Invalid search mode {mode!r}. Valid: {', '.join(MODES)}")
        try:
            knobs = check_knobs(self.spec, knobs)
        except ValueError as exc:
            raise QueryError(str(exc)) from exc
        allowed, n_docs = None, len(self)
        if filter is not None:
            allowed, n_docs = matching_chunks(self.conn, filter, self.field_types())
        n_chunks = len(allowed) if allowed is not None else db.counts(self.conn)["chunks"]
        want = min(k, n_chunks if per_chunk else n_docs)
        if want == 0:
            results: list[list[Hit]] = [[] for _ in items]
        else:
            ranked = self._ranked(items, want, mode, per_chunk, allowed, knobs, rrf_k, weights)
            results = [self._hits(r) for r in ranked]
        return results[0] if single else results

    def field_types(self) -> dict[str, str]:
        return dict(self.manifest["metadata_fields"]) if not self._dirty else field_types(self.conn)

    def field_values(self, name: str, limit: int = 50) -> list[Any] | None:
        """The distinct values of metadata field `name` among live documents, sorted (True/False
        for a bool field); None when there are more than `limit`. Raises `QueryError` for a field
        the index does not have."""
        types = self.field_types()
        if name not in types:
            raise unknown_field(name, types)
        key = (name, limit)
        if self._dirty or key not in self._values:
            values = field_values(self.conn, name, limit)
            if values is not None and types[name] == "bool":
                values = [bool(v) for v in values]
            if self._dirty:
                return values
            self._values[key] = values  # a published store never changes: keep its values
        values = self._values[key]
        return list(values) if values is not None else None

    # -- search internals --------------------------------------------------------------------
    def _ranked(self, queries, want, mode, per_chunk, allowed, knobs, rrf_k, weights):
        if mode == "dense":
            return self._dense(queries, want, per_chunk, allowed, knobs)
        if mode == "lexical":
            return self._lexical_search(queries, want, per_chunk, allowed)
        depth = max(4 * want, 100)
        dense = self._dense(queries, depth, per_chunk, allowed, knobs, strict=False)
        lexical = self._lexical_search(queries, depth, per_chunk, allowed)
        out = []
        for d, lx in zip(dense, lexical, strict=True):
            best: dict[Any, int] = {}
            for cid, _ in lx + d:  # dense wins the representative chunk (iterated last)
                best[self._group_key(cid, per_chunk)] = cid
            fused = rrf([[self._group_key(c, per_chunk) for c, _ in d],
                         [self._group_key(c, per_chunk) for c, _ in lx]], k=rrf_k, weights=weights)
            out.append([(best[key], score) for key, score in fused[:want]])
        return out

    def _group_key(self, chunk_id: int, per_chunk: bool):
        return chunk_id if per_chunk else self._doc_cache[chunk_id]

    def _group(self, ranked: Ranked, want: int, per_chunk: bool) -> Ranked:
        """Best chunk per document (or chunks as they come), at most `want`."""
        docs = self._docs_for([c for c, _ in ranked])
        out, seen = [], set()
        for cid, score in ranked:
            key = cid if per_chunk else docs.get(cid)
            if key is None or key in seen:
                continue  # a chunk that is no longer live
            seen.add(key)
            out.append((cid, score))
            if len(out) == want:
                break
        return out

    def _docs_for(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        missing = [c for c in chunk_ids if c not in self._doc_cache]
        for part in range(0, len(missing), 900):
            ids = missing[part : part + 900]
            marks = ",".join("?" * len(ids))
            q = f"SELECT chunk_id, doc_id FROM chunks WHERE chunk_id IN ({marks})"
            self._doc_cache.update(self.conn.execute(q, ids).fetchall())
        return {c: self._doc_cache[c] for c in chunk_ids if c in self._doc_cache}

    def _dense(self, queries, want, per_chunk, allowed, knobs, strict=True) -> list[Ranked]:
        """FAISS search with adaptive over-fetch: grow the fetch, then exhaustive knobs, until
        each query has `want` documents (or everything that can match has been seen)."""
        qv = self.encoder.encode(list(queries), prompt="query")  # (Q, dim) unit rows
        ntotal = int(self.vectors.ntotal)
        sel = self._selector(allowed)
        fetch = min(ntotal, want if per_chunk else max(4 * want, 16))
        exhaustive = False
        out: list[Ranked | None] = [None] * len(queries)
        pending = list(range(len(queries)))
        while pending and fetch > 0:
            params = search_params(self.spec, exhaustive_knobs(self.spec, self.vectors)
                                   if exhaustive else knobs, sel, self.vectors)
            scores, ids = self.vectors.search(qv[pending], fetch, params=params)
            still = []
            for row, q in enumerate(pending):
                ranked = [(int(c), float(s)) for c, s in zip(ids[row], scores[row], strict=True)
                          if c >= 0]
                out[q] = self._group(ranked, want, per_chunk)
                if len(out[q]) < want:
                    still.append(q)
            pending = still
            if not pending or not strict and fetch >= min(ntotal, 4 * want):
                break
            if fetch < ntotal:
                fetch = min(ntotal, fetch * 4)
            elif not exhaustive and self.spec.knobs:
                exhaustive = True
            else:
                break
        return [r or [] for r in out]

    def _selector(self, allowed: list[int] | None):
        if allowed is not None:
            return faiss.IDSelectorBatch(np.asarray(allowed, dtype=np.int64))
        if len(self._tombstones):
            batch = faiss.IDSelectorBatch(self._tombstones)
            sel = faiss.IDSelectorNot(batch)
            sel._batch = batch  # keep alive
            return sel
        return None

    def _lexical_search(self, queries, want, per_chunk, allowed) -> list[Ranked]:
        lexical = self.lexical
        fetch = min(len(lexical), want if per_chunk else max(4 * want, 16))
        allowed_set = set(allowed) if allowed is not None else None
        out: list[Ranked] = []
        for query in queries:
            n = fetch
            while True:
                ranked = lexical.search([query], n, allowed_set)[0]
                grouped = self._group(ranked, want, per_chunk)
                if len(grouped) >= want or len(ranked) < n or n >= len(lexical):
                    break
                n = min(len(lexical), n * 4)
            out.append(grouped)
        return out

    @property
    def lexical(self) -> LexicalIndex:
        if self._lexical is None:
            self._lexical = LexicalIndex.build(*db.lexical_rows(self.conn))
        return self._lexical

    def _hits(self, ranked: Ranked) -> list[Hit]:
        rows = db.chunk_rows(self.conn, [c for c, _ in ranked])
        hits = []
        for rank, (cid, score) in enumerate(ranked, start=1):
            doc_id, start, end, title, text, meta = rows[cid]
            hits.append(Hit(doc_id, cid, score, rank, text[start:end], title, start, end,
                            json.loads(meta)))
        return hits

    # -- changing ----------------------------------------------------------------------------
    def _writable(self) -> sqlite3.Connection:
        """Copy-on-write: the first change copies the published store into a private file."""
        if self._staging is None:
            self._staging = self.folder / f".staging-{uuid.uuid4().hex}.sqlite"
            self.conn = db.open_writable(self._staging, source=self.conn)
        self._dirty = True
        self._values.clear()  # values kept from the published store no longer hold
        return self.conn

    def add(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
            progress: Callable[[int, int], None] | None = None) -> int:
        """Add new documents (ids must be new: use `upsert` to replace). Returns chunks added."""
        docs = [Document.coerce(d) for d in documents]
        taken = db.existing_ids(self.conn, [d.id for d in docs])
        if taken:
            raise ValueError(f"{len(taken)} document ids already exist (e.g. {taken[0]!r}): "
                             "use upsert() to replace them")
        if len({d.id for d in docs}) != len(docs):
            raise ValueError("duplicate ids among the documents to add")
        return self._insert(docs, batch_size, progress)

    def upsert(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None) -> int:
        """Add documents, replacing any with the same id (the last of duplicates wins)."""
        docs = list({d.id: d for d in (Document.coerce(x) for x in documents)}.values())
        self.delete([d.id for d in docs])
        return self._insert(docs, batch_size, progress)

    def _insert(self, docs: list[Document], batch_size: int, progress) -> int:
        if not docs:
            return 0
        chunking = ChunkingConfig(**self.manifest["chunking"])
        chunks = chunk_documents(self.encoder, docs, chunking)
        vectors = self.encoder.encode([c.encoded for c in chunks], prompt="passage",
                                      batch_size=batch_size)
        conn = self._writable()
        first = db.next_chunk_id(conn)
        ids = np.arange(first, first + len(chunks), dtype=np.int64)
        train_and_add(self.vectors, vectors, ids)
        db.insert_documents(conn, docs)
        db.insert_chunks(conn, ((int(i), c.doc_id, c.chunk_no, c.start, c.end,
                                 " ".join(tokenize(c.encoded))) for i, c in zip(ids, chunks,
                                                                               strict=True)))
        db.set_next_chunk_id(conn, first + len(chunks))
        self._lexical = None
        if progress:
            progress(len(docs), len(docs))
        return len(chunks)

    def delete(self, doc_ids: Sequence[str]) -> int:
        """Delete documents by id; unknown ids are ignored. Returns documents deleted."""
        doc_ids = [str(d) for d in doc_ids]
        found = db.existing_ids(self.conn, doc_ids)
        if not found:
            return 0
        conn = self._writable()
        chunk_ids = np.asarray(db.chunk_ids_of(conn, found), dtype=np.int64)
        try:
            removed = self.vectors.remove_ids(faiss.IDSelectorBatch(chunk_ids))
            assert removed == len(chunk_ids), (removed, len(chunk_ids))
        except RuntimeError:  # HNSW / refine cannot remove: tombstone, filtered at search
            db.add_tombstones(conn, chunk_ids)
            self._tombstones = np.asarray(db.tombstones(conn), dtype=np.int64)
        db.delete_documents(conn, found)
        for c in chunk_ids.tolist():
            self._doc_cache.pop(c, None)
        self._lexical = None
        return len(found)

    def compact(self) -> int:
        """Rebuild the FAISS index from live vectors, dropping tombstones. Returns those dropped."""
        if not len(self._tombstones):
            return 0
        conn = self._writable()
        live = np.asarray(db.live_chunk_ids(conn), dtype=np.int64)
        vecs = np.vstack([self.vectors.reconstruct(int(i)) for i in live]) if len(live) else \
            np.empty((0, self.manifest["dim"]), dtype=np.float32)
        from .presets import create

        fresh = create(self.spec, self.manifest["dim"])
        if len(live):
            train_and_add(fresh, vecs, live)
        dropped = len(self._tombstones)
        self.vectors = fresh
        conn.execute("DELETE FROM tombstones")
        self._tombstones = np.empty(0, dtype=np.int64)
        return dropped

    def save(self) -> None:
        """Publish the changes as a new version (atomic; readers see old or new, whole)."""
        if not self._dirty:
            return
        with storage.writer_lock(self.folder):
            self._publish()

    def _publish(self) -> None:
        folder = self.folder
        on_disk = storage.read_manifest(folder) if (folder / storage.MANIFEST).exists() else {}
        version = max(int(on_disk.get("version", 0)), int(self.manifest.get("version", 0))) + 1
        names = storage.version_names(version)
        tag = uuid.uuid4().hex
        # FAISS file
        tmp_faiss = folder / f".staging-{tag}.faiss"
        faiss.write_index(self.vectors, str(tmp_faiss))
        storage.fsync_path(tmp_faiss)
        tmp_faiss.rename(folder / names["faiss"])
        # BM25 folder
        tmp_bm25 = folder / f".staging-{tag}-bm25"
        self.lexical.save(tmp_bm25)
        storage.fsync_tree(tmp_bm25)
        tmp_bm25.rename(folder / names["bm25"])
        # SQLite file (the private working copy becomes the published one)
        self.conn.commit()
        types = field_types(self.conn)
        self.conn.close()
        storage.fsync_path(self._staging)
        self._staging.rename(folder / names["sqlite"])
        self._staging = None
        storage.fsync_path(folder)
        self.conn = db.open_readonly(folder / names["sqlite"])
        counts = db.counts(self.conn)
        manifest = dict(self.manifest)
        manifest.update(
            version=version, updated_at=now(), counts=counts, metadata_fields=types,
            files=storage.file_entries(folder, names),
        )
        storage.write_json_atomic(folder / storage.MANIFEST, manifest)
        self.manifest = manifest
        self._dirty = False
        previous = {e["path"] for e in on_disk.get("files", {}).values()}
        storage.remove_old_versions(folder, keep=set(names.values()) | previous)

    def __repr__(self) -> str:
        m = self.manifest
        return (f"SemanticIndex({str(self.folder)!r}, documents={m['counts']['documents']}, "
                f"model={m['encoder']['name']!r}, preset={m['preset']!r})")


def _check_queries(queries: Sequence[str]) -> list[str]:
    if not isinstance(queries, (list, tuple)) or not queries:
        raise QueryError("queries must be a string or a non-empty list of strings")
    for q in queries:
        if not isinstance(q, str):
            raise QueryError(f"a query must be a string, got {type(q).__name__}")
        if not q.strip():
            raise QueryError("empty query: type some words to search for")
    return list(queries)
