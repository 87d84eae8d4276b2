"""Document writes: add or replace a batch, delete by id. Off unless the server was started with
`--api-key-file`, then only with `Authorization: Bearer <key>`. Each write opens the index's
current version, changes a private copy and publishes it with `save()` (which re-applies the
changes over another writer's newer version); the next search of every worker reopens it."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .errors import ApiError
from .openapi import BODY, LIMITED, errors
from .schemas import DeleteRequest, DocumentsRequest
from .shared import check_count, check_given, service_of

bearer = HTTPBearer(auto_error=False, description="the key in the server's --api-key-file")


def authorized(request: Request,
               credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
               ) -> None:
    key = service_of(request).config.api_key
    if key is None:
        raise ApiError(403, "document writes are off: start the server with --api-key-file "
                            "FILE and send Authorization: Bearer <the key in it>")
    given = credentials.credentials if credentials is not None else ""
    if not hmac.compare_digest(given.encode("utf-8"), key.encode("utf-8")):
        raise ApiError(401, "a document write needs Authorization: Bearer <the server's API "
                            "key>" + (": that key is wrong" if given else ""),
                       headers={"WWW-Authenticate": "Bearer"})


router = APIRouter(dependencies=[Depends(authorized)], tags=["documents"],
                   responses=errors(*BODY, *LIMITED, 400, 401, 403, 404, 409, 503, 507))


@router.post("/v1/indexes/{name}/documents")
def add_documents(name: str, body: DocumentsRequest, request: Request) -> dict:
    """Add documents, replacing those whose id exists (`replace: false`: an existing id is a
    409 naming it, and nothing is written). A write that conflicts with another writer's (both
    added the same new id) is a 409 too; the index keeps the other writer's version whole."""
    svc = service_of(request)
    check_count(len(body.documents), svc.config.limits.max_documents, "documents",
                "max_documents")
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


@router.delete("/v1/indexes/{name}/documents")
def delete_documents(name: str, body: DeleteRequest, request: Request) -> dict:
    """Delete documents by id; `missing` names the ids that were not in the index."""
    svc = service_of(request)
    check_count(len(body.ids), svc.config.limits.max_documents, "ids", "max_documents")
    check_given(body.ids, "ids", fix="give the id of each document to delete")
    with svc.indexes.write_lock(name), svc.indexes.writing(name) as index:
        missing = index.missing(body.ids)
        deleted = index.delete(body.ids)
        index.save()
        version = index.stats().version
    return {"deleted": deleted, "missing": missing, "version": version}
