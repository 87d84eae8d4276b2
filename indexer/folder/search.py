"""`Searcher`: the folder store's dense (FAISS), lexical (BM25) and hybrid (fused: `fusion.fuse`)
search, with metadata filters, over one state of an index. Hits are per document (its best chunk)
unless per chunk; `readers` (`indexer.access`) and filters restrict it inside the search, before
top-k. Its arguments are checked as every store checks them (`indexer.search_args`)."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import faiss
import numpy as np

from common.documents import chunk_metadata
from common.lexical import LexicalIndex

from ..documents import Hit
from ..filters import compile_filter
from ..fusion import fuse
from ..presets import Spec, exhaustive_knobs, search_params
from ..search_args import check_search
from ..search_threads import faiss_threads
from . import db
from .allowed import Allowed, exact_ranked
from .columns import Columns
from .store import VectorSegments

Ranked = list[tuple[int, float]]  # (chunk id, score), best first
DOC_OF_KEPT = 100_000  # chunk -> document ids a searcher keeps between queries (no columns)


class Searcher:
    """Search over `vectors` (base + delta) + `conn` (+ BM25, built lazily by `lexical`).
    `encode` embeds queries; `tombstones` are chunk ids still in FAISS but deleted."""

    def __init__(self, vectors: VectorSegments, conn: sqlite3.Connection, spec: Spec,
                 tombstones: np.ndarray, lexical: Callable[[], LexicalIndex],
                 encode: Callable[[list[str]], np.ndarray],
                 field_types: Callable[[], dict[str, str]],
                 counts: Callable[[], dict[str, int]],
                 columns: Callable[[], Columns | None] = lambda: None) -> None:
        self.vectors = vectors
        self.conn = conn
        self.spec = spec
        self.tombstones = tombstones
        self._lexical = lexical
        self._encode = encode
        self._field_types = field_types
        self._counts = counts
        self._columns = columns
        self._doc_of: dict[int, str] = {}  # chunk id -> document id, filled as hits arrive

    def search(self, queries: str | Sequence[str], k: int, *, mode: str,
               filter: dict[str, Any] | None, per_chunk: bool, rrf_k: int,  # noqa: A002
               weights: tuple[float, float] | None, knobs: dict[str, int], fusion: str,
               readers: frozenset[str] | None = None) -> list[Hit] | list[list[Hit]]:
        single = isinstance(queries, str)
        items, per_chunk, fusion_args, knobs = check_search(
            [queries] if single else queries, k, mode, per_chunk, rrf_k, fusion, weights,
            self.spec, knobs)
        counts = self._counts()
        allowed = self._allowed(filter, readers)
        n_docs = counts["documents"] if allowed is None else allowed.docs
        n_chunks = counts["chunks"] if allowed is None else allowed.count
        want = min(k, n_chunks if per_chunk else n_docs)
        if want == 0:
            results: list[list[Hit]] = [[] for _ in items]
        else:
            ranked = self._ranked(items, want, mode, per_chunk, allowed, knobs, fusion_args)
            results = [self._hits(r) for r in ranked]
        return results[0] if single else results

    def _allowed(self, spec: dict[str, Any] | None, readers: frozenset[str] | None
                 ) -> Allowed | None:
        """The chunks a filter and `readers` allow (None: every chunk): from the filter index
        (`Columns`) where the version has one for every field named, else matched by SQLite
        (a writer's unsaved copy). Access is one more condition: dense, lexical and hybrid
        search rank only these chunks, so top-k is filled from what the readers may see."""
        conditions = [] if spec is None else compile_filter(spec, self._field_types())
        if not conditions and readers is None:
            return None
        columns = self._columns()
        if columns is not None and columns.can_match(conditions) and \
                (readers is None or columns.access is not None):
            if not conditions and columns.visible(readers) is None:
                return None  # no document of this version is restricted
            mask, docs = columns.matching(conditions, readers)
            return Allowed(mask, int(np.count_nonzero(mask)), docs)
        ids, docs = db.matching_chunks(self.conn, conditions, readers)
        return Allowed.of_ids(ids, docs, int(self.vectors.ntotal))

    def _ranked(self, queries, want, mode, per_chunk, allowed, knobs, fusion_args):
        if mode == "dense":
            return self._dense(queries, want, per_chunk, allowed, knobs)
        if mode == "lexical":
            return self._lexical_search(queries, want, per_chunk, allowed)
        depth = max(4 * want, 100)
        dense = self._dense(queries, depth, per_chunk, allowed, knobs, strict=False)
        lexical = self._lexical_search(queries, depth, per_chunk, allowed)
        out = []
        for d, lx in zip(dense, lexical, strict=True):
            both = lx + d
            keys = [c for c, _ in both] if per_chunk else self._doc_keys([c for c, _ in both])
            key = dict(zip((c for c, _ in both), keys, strict=True)).__getitem__  # chunk -> group
            # dense wins the representative chunk (iterated last)
            best = {key(cid): cid for cid, _ in both}
            fused = fuse([[(key(c), s) for c, s in d], [(key(c), s) for c, s in lx]],
                         **fusion_args)
            out.append([(best[k], score) for k, score in fused[:want]])
        return out

    def _group(self, ranked: Ranked, want: int, per_chunk: bool) -> Ranked:
        """Best chunk per document (or chunks as they come), at most `want`."""
        keys = self._doc_keys([c for c, _ in ranked])
        out, seen = [], set()
        for (cid, score), key in zip(ranked, keys, strict=True):
            group = cid if per_chunk else key
            if key is None or group in seen:
                continue  # a chunk that is no longer live
            seen.add(group)
            out.append((cid, score))
            if len(out) == want:
                break
        return out

    def _doc_keys(self, chunk_ids: list[int]) -> list:
        """Each chunk's document (None: not live): the filter index's document column, read in
        one step, or SQLite's chunk rows (a writer's unsaved copy), kept for the next queries
        up to a bound."""
        columns = self._columns()
        if columns is not None:
            doc = columns.doc
            ids = np.asarray(chunk_ids, dtype=np.int64)
            inside = (ids >= 0) & (ids < len(doc))
            found = np.full(len(ids), -1, dtype=np.int64)
            found[inside] = doc[ids[inside]]
            return [None if d < 0 else d for d in found.tolist()]
        doc_of = self._doc_of
        missing = [c for c in chunk_ids if c not in doc_of]
        if missing:
            if len(doc_of) > DOC_OF_KEPT:
                doc_of.clear()
            doc_of.update(db.doc_ids_of_chunks(self.conn, missing))
        return [doc_of.get(c) for c in chunk_ids]

    def _dense(self, queries, want, per_chunk, allowed, knobs, strict=True) -> list[Ranked]:
        """FAISS search with adaptive over-fetch: grow the fetch, then exhaustive knobs, until
        each query has `want` documents (or everything that can match has been seen). Under a
        filter that allows few chunks, or when the grown fetch still misses some, the allowed
        vectors are scored exactly instead of widening the search to the whole index."""
        qv = self._encode(list(queries))  # (Q, dim) unit rows
        if allowed is not None and allowed.few(int(self.vectors.ntotal)):  # exact over them
            top = self._fetch(want, per_chunk, allowed)
            exact = exact_ranked(self.vectors, qv, allowed, top)
            if exact is not None:
                out = [self._group(r, want, per_chunk) for r in exact]
                short = [q for q, r in enumerate(out) if len(r) < want and top < allowed.count]
                if short:  # documents of many chunks filled the top: every allowed chunk
                    for q, r in zip(short, exact_ranked(self.vectors, qv[short], allowed),
                                    strict=True):
                        out[q] = self._group(r, want, per_chunk)
                return out
        ntotal = int(self.vectors.ntotal)
        limit = ntotal if allowed is None else min(ntotal, allowed.count)
        sel = self._selector(allowed)
        fetch = min(limit, self._fetch(want, per_chunk, allowed))
        exhaustive = False
        out: list[Ranked | None] = [None] * len(queries)
        pending = list(range(len(queries)))
        while pending and fetch > 0:
            base = self.vectors.base  # the delta is exact: searched with `sel` alone
            params = search_params(self.spec, exhaustive_knobs(self.spec, base)
                                   if exhaustive else knobs, sel, base)
            with faiss_threads(len(pending)):
                scores, ids = self.vectors.search(qv[pending], fetch, params=params, sel=sel)
            still = []
            for row, q in enumerate(pending):
                ranked = [(c, s) for c, s in zip(ids[row].tolist(), scores[row].tolist(),
                                                  strict=True) if c >= 0]
                out[q] = self._group(ranked, want, per_chunk)
                if len(out[q]) < want:
                    still.append(q)
            pending = still
            if not pending or not strict and fetch >= min(limit, 4 * want):
                break
            if fetch < limit:
                fetch = min(limit, fetch * 4)
            elif allowed is not None:  # never widen a filtered search to every vector
                exact = exact_ranked(self.vectors, qv[pending], allowed)
                if exact is not None:
                    for q, r in zip(pending, exact, strict=True):
                        out[q] = self._group(r, want, per_chunk)
                    break
                allowed = None  # this index cannot give its vectors back: its own way
            elif not exhaustive and self.spec.knobs:
                exhaustive = True
            else:
                break
        return [r or [] for r in out]

    def _fetch(self, want: int, per_chunk: bool, allowed: Allowed | None) -> int:
        """Chunks to fetch first for `want` hits: per document, 4x (a document's chunks crowd
        the top), or fewer where the chunks searched have fewer per document (one each: `want`,
        where 4x only made FAISS's search and an ivfpq-disk re-ranking 4x as deep). A fetch
        that leaves a query short grows (`_dense`, `_lexical_search`)."""
        if per_chunk:
            return want
        if allowed is None:
            counts = self._counts()
            chunks, docs = counts["chunks"], counts["documents"]
        else:
            chunks, docs = allowed.count, allowed.docs
        return max(min(4, math.ceil(chunks / max(docs, 1))) * want, 16)

    def _selector(self, allowed: Allowed | None):
        if allowed is not None:  # a filter's mask holds live chunks only
            return allowed.selector()
        if len(self.tombstones):
            batch = faiss.IDSelectorBatch(self.tombstones)
            sel = faiss.IDSelectorNot(batch)
            sel._batch = batch  # keep alive
            return sel
        return None

    def _lexical_search(self, queries, want, per_chunk, allowed) -> list[Ranked]:
        lexical = self._lexical()
        fetch = min(len(lexical), self._fetch(want, per_chunk, allowed))
        allowed_mask = allowed.mask if allowed is not None else None
        out: list[Ranked] = []
        for query in queries:
            n = fetch
            while True:
                ranked = lexical.search([query], n, allowed_mask)[0]
                grouped = self._group(ranked, want, per_chunk)
                if len(grouped) >= want or len(ranked) < n or n >= len(lexical):
                    break
                n = min(len(lexical), n * 4)
            out.append(grouped)
        return out

    def _hits(self, ranked: Ranked) -> list[Hit]:
        rows = db.chunk_rows(self.conn, [c for c, _ in ranked])
        hits = []
        for rank, (cid, score) in enumerate(ranked, start=1):
            doc_id, start, end, title, text, meta = rows[cid]
            hits.append(Hit(doc_id, cid, score, rank, text[start:end], title, start, end,
                            chunk_metadata(json.loads(meta), start)))
        return hits
