"""What the routes share: the `Service` of a request, the limit checks (each error names its
limit), and a hit as JSON."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import orjson
from fastapi import Request, Response

from encoder import check_text
from indexer.search_threads import batch_threads

from .config import Limits
from .errors import ApiError

MODES = {"dense": "dense", "bm25": "lexical", "lexical": "lexical", "hybrid": "hybrid"}


def json_response(content: dict) -> Response:
    """`content` as JSON by orjson, numpy arrays included, skipping FastAPI's recursive
    `jsonable_encoder` (which walks every float of every vector in Python); float32 values are
    written at float32's shortest round-trip precision."""
    return Response(orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY),
                    media_type="application/json")


def service_of(request: Request):
    return request.app.state.service


@contextmanager
def searching(request: Request, name: str) -> Iterator:
    """Index `name`, searched in this block with a batch of queries on the configured
    `faiss_threads` (set around FAISS's call only: indexer.search_threads.faiss_threads)."""
    svc = service_of(request)
    index = svc.indexes.get(name)
    with batch_threads(svc.config.faiss_threads):
        yield index


def check_count(n: int, limit: int, what: str, name: str) -> None:
    if n > limit:
        raise ApiError(413, f"{n} {what} in one request; the limit is {limit} ({name}): "
                            "split the batch")


def check_texts_length(texts: Sequence[str], limit: int, what: str, name: str, *,
                       one: bool = False) -> None:
    """422 naming the text (`what[i]`, or `what` where the field holds `one` text) and limit."""
    for i, text in enumerate(texts):
        if len(text) > limit:
            where = what if one else f"{what}[{i}]"
            raise ApiError(422, f"{where} is {len(text)} characters; the limit is {limit} "
                                f"({name})")


def check_given(texts: Sequence[str], what: str, *, one: bool = False,
                fix: str = "pass some text") -> None:
    """The library's empty-text check (a 422), its message naming the request's field."""
    for i, text in enumerate(texts):
        check_text(text, where=what if one else f"{what}[{i}]", fix=fix)


def check_k(k: int, limits: Limits) -> None:
    if k > limits.max_k:
        raise ApiError(422, f"k={k} is over the limit of {limits.max_k} (max_k)")


def one_or_many(query: str | None, queries: list[str] | None, limits: Limits
                ) -> tuple[list[str], bool]:
    """(the queries, whether one was given as `query`): exactly one of the two fields."""
    if (query is None) == (queries is None):
        raise ApiError(422, "give `query` (one string) or `queries` (a list), not both or "
                            "neither")
    texts = [query] if queries is None else queries
    check_count(len(texts), limits.max_inputs, "queries", "max_inputs")
    check_texts_length(texts, limits.max_query_chars, "queries" if queries else "query",
                       "max_query_chars", one=queries is None)
    return texts, queries is None


def hit_json(hit, spans: list[tuple[int, int]] | None = None) -> dict:
    out = {"doc_id": hit.doc_id, "chunk_id": int(hit.chunk_id), "score": float(hit.score),
           "rank": hit.rank, "title": hit.title, "text": hit.text, "start": hit.start,
           "end": hit.end, "metadata": hit.metadata}
    if spans is not None:
        out["highlights"] = [list(s) for s in spans]
    return out
