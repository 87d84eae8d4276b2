"""A hit where it stands, for clients that show the page: a document's page as a PNG with a
chunk's characters marked (`?highlight=CHUNK_ID`), or the chunk's boxes on each page it reaches
as JSON, for clients that draw their own viewer. Short drivers over `indexer.pages`: the file is
read again from the folder the index was synced from and used only while its sha256 is the one
indexed (409 once it changed). A document id holding "/" is written as it is
(`.../documents/manuals/grfguide.pdf/pages/10.png`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from indexer.pages import MAX_PAGE, FileChanged, NotFound, PageError, highlight, page_png

from .access import readers_of
from .errors import ApiError
from .openapi import LIMITED, errors
from .shared import json_response, service_of

router = APIRouter(tags=["documents"])
PAGE = "/v1/indexes/{name}/documents/{doc_id:path}/pages/{page}.png"
BOXES = "/v1/indexes/{name}/documents/{doc_id:path}/highlight"
MAX_CHUNK_ID = 2**63 - 1
ChunkId = Annotated[int, Query(ge=0, le=MAX_CHUNK_ID, description="a hit's `chunk_id`")]


def _answer(call):
    try:
        return call()
    except NotFound as exc:
        raise ApiError(404, str(exc)) from None
    except FileChanged as exc:
        raise ApiError(409, str(exc)) from None
    except PageError as exc:
        raise ApiError(422, str(exc)) from None


@router.get(PAGE, response_class=Response, responses={
    200: {"content": {"image/png": {}}, "description": "the page, the chunk marked"},
    **errors(*LIMITED, 400, 404, 409, 422, 503)})
def page_image(name: str, doc_id: str,
               page: Annotated[int, Path(ge=1, le=MAX_PAGE, description="1-based")],
               request: Request, highlight: ChunkId | None = None) -> Response:
    """Page `page` of document `doc_id` (a PDF, or an image read by OCR) as a PNG; with
    `highlight`, that chunk's characters on it marked in amber (a chunk that goes on over the
    next page is marked there too: ask for both pages)."""
    index = service_of(request).indexes.get(name)
    png = _answer(lambda: page_png(index, doc_id, page, chunk_id=highlight,
                                    readers=readers_of(request)))
    return Response(png, media_type="image/png")


@router.get(BOXES, responses=errors(*LIMITED, 400, 404, 409, 422, 503))
def chunk_boxes(name: str, doc_id: str, chunk: ChunkId, request: Request) -> Response:
    """The boxes of chunk `chunk` on each page it reaches: `pages`: [{page, width, height,
    boxes: [[left, top, right, bottom], ...], text}], in PDF points from the page's top left
    corner (an image's pixels), `text` the chunk's characters on that page."""
    index = service_of(request).indexes.get(name)
    pages = _answer(lambda: highlight(index, doc_id, chunk, readers=readers_of(request)))
    return json_response({"doc_id": doc_id, "chunk_id": chunk,
                          "pages": [p.to_json() for p in pages]})
