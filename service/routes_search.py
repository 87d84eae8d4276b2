"""Reading routes: health, the indexes, search, and the RAG context. Each is a short driver over
`SemanticIndex.search` (the library's own checks answer 422) and `rag.context`."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request, Response

from rag.context import pack_context, token_counter
from rag.highlight import highlight_spans

from .access import may, readers_of
from .batching import encode_seconds
from .errors import ApiError
from .inline import Inline
from .openapi import BODY, LIMITED, errors
from .schemas import ContextRequest, SearchRequest
from .shared import (
    MODES,
    check_k,
    hit_json,
    json_response,
    one_or_many,
    searching,
    service_of,
)

router = APIRouter()


READ = errors(*BODY, *LIMITED, 400, 404, 503)
SEARCH, CONTEXT = "/v1/indexes/{name}/search", "/v1/indexes/{name}/context"


@router.get("/v1/indexes", tags=["indexes"], responses=errors(*LIMITED))
def list_indexes(request: Request) -> dict:
    """Every index under the root (with `--keys`: those the caller may read): name, model,
    backend, documents, chunks, preset."""
    indexes = service_of(request).indexes
    names = [n for n in indexes.names() if may(request, "read", n)]
    readers = readers_of(request)  # with --keys: counts of what the caller may see
    return {"object": "list", "data": [indexes.summary(n, readers) for n in names]}


def _search_args(body) -> dict:
    if body.mode != "hybrid":
        given = [f for f in ("weights", "fusion") if getattr(body, f) is not None]
        if given:
            raise ApiError(422, f"{' and '.join(given)} apply to mode hybrid only (this "
                                f"search's mode is {body.mode}); send mode: hybrid, or leave "
                                f"{' and '.join(given)} out")
    args = {"mode": MODES[body.mode], "filter": body.filters,
            "weights": tuple(body.weights) if body.weights is not None else None}
    return args if body.fusion is None else {**args, "fusion": body.fusion}


def _timings(started: float, request: Request) -> dict:
    """Milliseconds, to the microsecond; whole milliseconds on a server with `--keys`, where
    callers may not see every document: the server's clock, free of the network's noise, showed
    an index's size (hidden documents included) to a caller timing it, the client's did not
    (docs/SECURITY.md, bench/results/access_timing.md)."""
    total = time.perf_counter() - started
    encode = min(encode_seconds(), total)
    digits = 3 if readers_of(request) is None else 0
    return {"encode_ms": round(encode * 1000, digits),
            "search_ms": round((total - encode) * 1000, digits),
            "total_ms": round(total * 1000, digits)}


@router.post(SEARCH, tags=["indexes"], response_model=dict, responses=READ)
async def search(name: str, body: SearchRequest, request: Request) -> Response:
    """Top-k hits for `query` (→ `hits`) or for each of `queries` (→ `results`, one encode
    call). `timings`: encoding the queries (waiting for a shared batch included) and the rest."""
    svc = service_of(request)
    queries, single = one_or_many(body.query, body.queries, svc.config.limits)
    check_k(body.k, svc.config.limits)
    light = Inline.light(queries) and svc.indexes.open_now(name)
    return await svc.inline.answer((SEARCH, name), lambda: _search(name, body, request, queries,
                                                                   single), light=light)


def _search(name: str, body: SearchRequest, request: Request, queries: list[str],
            single: bool) -> Response:
    encode_seconds(reset=True)
    started = time.perf_counter()
    with searching(request, name) as index:
        found = index.search(queries[0] if single else queries, body.k,
                             per_chunk=body.per_chunk, readers=readers_of(request),
                             **_search_args(body))
    timings = _timings(started, request)
    lists = [found] if single else found

    def hits(query: str, ranked) -> list[dict]:
        return [hit_json(h, highlight_spans(query, h.text) if body.highlight else None)
                for h in ranked]

    results = [{"hits": hits(q, ranked)} for q, ranked in zip(queries, lists, strict=True)]
    out = results[0] if single else {"results": results}
    return json_response({**out, "model": index.manifest["encoder"]["name"], "timings": timings})


@router.post(CONTEXT, tags=["rag"], response_model=dict, responses=READ)
async def context(name: str, body: ContextRequest, request: Request) -> Response:
    """The RAG retrieval step: the top `k` chunks, deduplicated, at most `max_chunks_per_doc`
    per document, packed in rank order into `max_tokens` tokens of the index encoder's
    tokenizer, each with a citation; `prompt` cites them as "[1] …"."""
    svc = service_of(request)
    limits = svc.config.limits
    queries, _ = one_or_many(body.query, None, limits)
    check_k(body.k, limits)
    if body.max_tokens > limits.max_context_tokens:
        raise ApiError(422, f"max_tokens={body.max_tokens} is over the limit of "
                            f"{limits.max_context_tokens} (max_context_tokens)")
    light = Inline.light(queries) and svc.indexes.open_now(name)
    return await svc.inline.answer((CONTEXT, name), lambda: _context(name, body, request),
                                   light=light)


def _context(name: str, body: ContextRequest, request: Request) -> Response:
    encode_seconds(reset=True)
    started = time.perf_counter()
    with searching(request, name) as index:
        hits = index.search(body.query, body.k, per_chunk=True, readers=readers_of(request),
                            **_search_args(body))
    timings = _timings(started, request)
    packed = pack_context(hits, token_counter(index.encoder), body.max_tokens,
                          body.max_chunks_per_doc)
    out = packed.to_dict()
    for chunk in out["chunks"]:
        chunk["source"] = chunk["metadata"].get("source") or chunk["metadata"].get("url") \
            or chunk["title"] or chunk["doc_id"]
    return json_response({**out, "model": index.manifest["encoder"]["name"], "timings": timings})
