"""Search on Milvus: dense by its vector index (FLAT or HNSW, inner product on unit vectors),
lexical by its BM25 function over our own tokens, hybrid as both fused by `indexer.fusion.fuse`
here; filters and `readers` (`indexer.access`) as Milvus expressions (`expr.to_expr`, on the typed
metadata columns where the index has them: `columns.py`; `expr.access_expr`), applied by
Milvus before top-k; one hit per document through Milvus's
`group_by_field` unless per chunk. The checks are every store's (`indexer.search_args`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..documents import Hit
from ..errors import QueryError
from ..filters import compile_filter
from ..fusion import fuse
from ..presets import Spec
from ..search_args import check_search
from .columns import Columns, usable
from .expr import access_expr, both, to_expr
from .filtered_exact import exact_over_filter, widest
from .rows import token_text

MAX_TOPK = 16_384  # Milvus's largest `limit`
HIT_FIELDS = ["doc_id", "char_start", "char_end", "title", "text", "metadata"]
Ranked = list[tuple[int, float]]  # (chunk id, score), best first


class MilvusSearcher:
    def __init__(self, client, collection: str, spec: Spec,
                 encode: Callable[[list[str]], np.ndarray],
                 field_types: Callable[[], dict[str, str]], bm25_k1: float,
                 token_encoding: int, columns: Callable[[], Columns] = dict) -> None:
        self.client = client
        # Milvus scores BM25 with Lucene's old (k1 + 1) factor, bm25s (the folder store) without
        # it: divided out, the scores are the folder store's on the same statistics
        self._lexical_scale = 1.0 / (bm25_k1 + 1.0)
        self.collection = collection
        self.spec = spec
        self._encode = encode
        self._field_types = field_types
        self._columns = columns  # the typed metadata columns, as of the last `field_types()`
        self._token_encoding = token_encoding

    def search(self, queries: str | Sequence[str], k: int, *, mode: str,
               filter: dict[str, Any] | None, per_chunk: bool, rrf_k: int,  # noqa: A002
               weights: tuple[float, float] | None, knobs: dict[str, int], fusion: str,
               readers: frozenset[str] | None = None) -> list[Hit] | list[list[Hit]]:
        single = isinstance(queries, str)
        items, per_chunk, fusion_args, knobs = check_search(
            [queries] if single else queries, k, mode, per_chunk, rrf_k, fusion, weights,
            self.spec, knobs)
        if k > MAX_TOPK:
            raise QueryError(f"k={k} is more than Milvus returns in one search ({MAX_TOPK})")
        expr = ""
        if filter is not None:
            types = self._field_types()
            expr = to_expr(compile_filter(filter, types), types,
                           columns=usable(self._columns(), types))
        expr = both(expr, access_expr(readers))  # inside Milvus's search: before top-k
        rows: dict[int, dict] = {}  # chunk id -> its fields, as the hits arrive
        if mode == "dense":
            ranked = self._dense(items, k, per_chunk, expr, knobs, rows)
        elif mode == "lexical":
            ranked = self._lexical(items, k, per_chunk, expr, rows)
        else:
            # candidates carry their document only; the texts are fetched for the fused top k
            # (809 SciFact queries at k=100 had held 800 texts a query, 13.6 GB, in milvus-lite)
            depth = min(MAX_TOPK, max(4 * k, 100))
            dense = self._dense(items, depth, per_chunk, expr, knobs, rows, ["doc_id"])
            lexical = self._lexical(items, depth, per_chunk, expr, rows, ["doc_id"])
            ranked = [self._fused(d, lx, k, per_chunk, rows, fusion_args)
                      for d, lx in zip(dense, lexical, strict=True)]
            self._fetch({c for q in ranked for c, _ in q}, rows)
        # a chunk another writer deleted since it ranked has no fields to fetch: not a hit
        results = [[_hit(rows[c], c, s, r) for r, (c, s) in
                    enumerate([(c, s) for c, s in q if "text" in rows[c]], start=1)]
                   for q in ranked]
        return results[0] if single else results

    def _fetch(self, ids: set[int], rows: dict[int, dict], batch: int = 1024) -> None:
        """The hit fields of chunks `ids` into `rows`."""
        ordered = sorted(ids)
        for start in range(0, len(ordered), batch):
            for row in self.client.get(self.collection, ids=ordered[start:start + batch],
                                       output_fields=HIT_FIELDS):
                rows[int(row["chunk_id"])] = row

    def _run(self, data, field: str, limit: int, per_chunk: bool, expr: str, params: dict,
             rows: dict[int, dict], fields: list[str]) -> list[Ranked]:
        """The top `limit` hits of each query, one per document unless `per_chunk`: a plain
        search whose chunks are kept at their document's first (best) hit, which is the start
        of what `group_by_field` returns; a query whose documents that leaves short of `limit`
        while there may be more is asked again grouped (milvus-lite's grouping costs several
        plain searches: 55 ms against 14 at depth 100 on 10,000 chunks)."""
        found = self._search(data, field, limit, expr, params, rows, fields, group=False)
        if per_chunk:
            return found
        out = [_first_of_each(ranked, rows) for ranked in found]
        short = [i for i, (ranked, raw) in enumerate(zip(out, found, strict=True))
                 if len(ranked) < limit and len(raw) == limit]
        if short:
            again = self._search([data[i] for i in short], field, limit, expr, params, rows,
                                 fields, group=True)
            for i, ranked in zip(short, again, strict=True):
                out[i] = ranked
        return out

    def _search(self, data, field: str, limit: int, expr: str, params: dict,
                rows: dict[int, dict], fields: list[str], *, group: bool) -> list[Ranked]:
        found = self.client.search(
            self.collection, data=data, anns_field=field, limit=limit, filter=expr,
            output_fields=fields, search_params=params,
            **({"group_by_field": "doc_id"} if group else {}))
        out = []
        for hits in found:
            ranked = []
            for hit in hits:
                cid = int(hit.get("chunk_id", hit.get("id")))
                rows[cid] = hit["entity"]
                # BM25: milvus-lite reports the score negated, a server as it is; both >= 0
                score = float(hit["distance"])
                ranked.append((cid, abs(score) * self._lexical_scale if field == "sparse"
                               else score))
            out.append(ranked)
        return out

    def _dense(self, queries, want, per_chunk, expr, knobs, rows,
               fields: list[str] = HIT_FIELDS) -> list[Ranked]:
        qv = self._encode(list(queries))  # (Q, dim) unit rows
        params: dict[str, Any] = {"metric_type": "IP"}
        if "efSearch" not in knobs:  # FLAT: exact, filtered or not
            return self._run(qv.tolist(), "vector", want, per_chunk, expr, params, rows, fields)
        params["params"] = {"ef": max(knobs["efSearch"], want)}
        found = self._run(qv.tolist(), "vector", want, per_chunk, expr, params, rows, fields)
        short = [i for i, ranked in enumerate(found) if len(ranked) < want] if expr else []
        if short:  # the graph walk lost what the filter keeps (`filtered_exact`)
            again = exact_over_filter(self.client, self.collection, qv[short], expr, want,
                                      per_chunk, rows)
            if again is None:
                again = self._run(qv[short].tolist(), "vector", want, per_chunk, expr,
                                  widest(params), rows, fields)
            elif "text" in fields:
                self._fetch({c for ranked in again for c, _ in ranked}, rows)
            for i, ranked in zip(short, again, strict=True):
                found[i] = ranked
        return found

    def _lexical(self, queries, want, per_chunk, expr, rows,
                 fields: list[str] = HIT_FIELDS) -> list[Ranked]:
        texts = [token_text(q, self._token_encoding) for q in queries]
        asked = [i for i, t in enumerate(texts) if t]  # only stop words: nothing to match
        out: list[Ranked] = [[] for _ in queries]
        if asked:
            found = self._run([texts[i] for i in asked], "sparse", want, per_chunk, expr,
                              {"metric_type": "BM25"}, rows, fields)
            for i, ranked in zip(asked, found, strict=True):
                out[i] = ranked
        return out

    @staticmethod
    def _fused(dense: Ranked, lexical: Ranked, want: int, per_chunk: bool,
               rows: dict[int, dict], fusion_args: dict) -> Ranked:
        def key(cid: int):
            return cid if per_chunk else rows[cid]["doc_id"]

        best: dict[Any, int] = {}
        for cid, _ in lexical + dense:  # dense wins the representative chunk (iterated last)
            best[key(cid)] = cid
        fused = fuse([[(key(c), s) for c, s in dense], [(key(c), s) for c, s in lexical]],
                     **fusion_args)
        return [(best[k], score) for k, score in fused[:want]]


def _first_of_each(ranked: Ranked, rows: dict[int, dict]) -> Ranked:
    """`ranked` with each document's first chunk only."""
    seen: set[str] = set()
    out = []
    for cid, score in ranked:
        doc = rows[cid]["doc_id"]
        if doc not in seen:
            seen.add(doc)
            out.append((cid, score))
    return out


def _hit(row: dict, cid: int, score: float, rank: int) -> Hit:
    return Hit(row["doc_id"], cid, score, rank, row["text"], row["title"], row["char_start"],
               row["char_end"], dict(row.get("metadata") or {}))
