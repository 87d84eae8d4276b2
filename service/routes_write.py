"""Document writes: add or replace a batch, delete by id. With `--keys`, for a principal with a
`write` scope on the index (service/access.py checks it before the route); else off unless the
server was started with `--api-key-file`, then only with `Authorization: Bearer <key>`. Every
write and every refused one is a line of the audit log (`--audit-log`). Each write opens the index's
current version, changes a private copy and publishes it with `save()` (which re-applies the
changes over another writer's newer version); the next search of every worker reopens it."""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .access import principal_of
from .errors import ApiError, status_of
from .openapi import BODY, LIMITED, errors
from .schemas import DeleteRequest, DocumentsRequest
from .shared import check_count, check_given, service_of

bearer = HTTPBearer(auto_error=False, description="a key of the server's --keys file, or the "
                    "key in its --api-key-file")
DOCS = "/v1/indexes/{name}/documents"


def authorized(request: Request,
               credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
               ) -> None:
    svc = service_of(request)
    if svc.gate.keys is not None:
        return  # --keys: the write scope was checked before the route (service/access.py)
    key = svc.config.api_key
    index = request.path_params.get("name")
    if key is None:
        svc.gate.refused(None, request.method, DOCS, index, 403, "writes_off")
        raise ApiError(403, "document writes are off: start the server with --keys FILE (a "
                            "principal with a 'write' scope) or --api-key-file FILE, and send "
                            "Authorization: Bearer <the key>")
    given = credentials.credentials if credentials is not None else ""
    if not hmac.compare_digest(given.encode("utf-8"), key.encode("utf-8")):
        svc.gate.refused(None, request.method, DOCS, index, 401, "bad_key" if given else "no_key")
        raise ApiError(401, "a document write needs Authorization: Bearer <the server's API "
                            "key>" + (": that key is wrong" if given else ""),
                       headers={"WWW-Authenticate": "Bearer"})


router = APIRouter(dependencies=[Depends(authorized)], tags=["documents"],
                   responses=errors(*BODY, *LIMITED, 400, 401, 403, 404, 409, 503, 507))


@contextmanager
def audited(request: Request, name: str, ids: list[str]) -> Iterator[None]:
    """One audit line for the write in this block: written (200) or failed (its status)."""
    gate, principal = service_of(request).gate, principal_of(request)
    try:
        yield
    except ApiError as exc:
        gate.wrote(principal, request.method, DOCS, name, ids, exc.status, exc.message)
        raise
    except Exception as exc:
        gate.wrote(principal, request.method, DOCS, name, ids, status_of(exc),
                   f"{type(exc).__name__}: {exc}")
        raise
    gate.wrote(principal, request.method, DOCS, name, ids, 200)


@router.post(DOCS)
def add_documents(name: str, body: DocumentsRequest, request: Request) -> dict:
    """Add documents, replacing those whose id exists (`replace: false`: an existing id is a
    409 naming it, and nothing is written). A write that conflicts with another writer's (both
    added the same new id) is a 409 too; the index keeps the other writer's version whole."""
    with audited(request, name, [d.id for d in body.documents]):
        return _add(name, body, request)


def _add(name: str, body: DocumentsRequest, request: Request) -> dict:
    svc = service_of(request)
    check_count(len(body.documents), svc.config.limits.max_documents, "documents",
                "max_documents")
    limit = svc.config.limits.max_text_chars  # the documented HTTP limit (the library's is higher)
    for i, d in enumerate(body.documents):
        if len(d.text) > limit:
            raise ApiError(422, f"document {d.id[:80]!r}: documents[{i}].text is "
                                f"{len(d.text):,} characters; a write holds at most {limit:,} "
                                "(max_text_chars): split it into several documents")
    docs = [d.model_dump() for d in body.documents]  # the library checks each as its own
    with svc.indexes.write_lock(name), svc.indexes.writing(name) as index:
        if not body.replace:
            ids = [d["id"] for d in docs]
            missing = set(index.missing(ids))
            taken = [i for i in ids if i not in missing]
            if taken:
                raise ApiError(409, f"{len(taken)} document ids already exist (e.g. "
                                    f"{taken[0][:80]!r}) and replace is false: nothing was "
                                    "written; send replace: true to replace them")
        chunks = index.upsert(docs) if body.replace else index.add(docs)
        index.save()
        version = index.stats().version
    return {"documents": len(docs), "chunks": chunks, "version": version}


@router.delete(DOCS)
def delete_documents(name: str, body: DeleteRequest, request: Request) -> dict:
    """Delete documents by id; `missing` names the ids that were not in the index."""
    with audited(request, name, list(body.ids)):
        return _delete(name, body, request)


def _delete(name: str, body: DeleteRequest, request: Request) -> dict:
    svc = service_of(request)
    check_count(len(body.ids), svc.config.limits.max_documents, "ids", "max_documents")
    check_given(body.ids, "ids", fix="give the id of each document to delete")
    with svc.indexes.write_lock(name), svc.indexes.writing(name) as index:
        missing = index.missing(body.ids)
        deleted = index.delete(body.ids)
        index.save()
        version = index.stats().version
    return {"deleted": deleted, "missing": missing, "version": version}
