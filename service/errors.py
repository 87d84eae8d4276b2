"""Every error is JSON `{"error": {"message", "type"}}` with a status that says whose fault it is:
the library's own errors (each names its fix) mapped to 4xx, anything unexpected to a 500 that
says it was logged. Never a traceback, never HTML."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from encoder.errors import BrokenModelError
from indexer import (
    ConcurrentWriteError,
    CorruptIndexError,
    DiskFullError,
    EncoderMismatchError,
    UnavailableError,
)

log = logging.getLogger("bertscope.service")

PHRASES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
           404: "not_found_error", 405: "invalid_request_error", 408: "request_timeout",
           409: "conflict_error", 413: "request_too_large", 415: "invalid_request_error",
           422: "invalid_request_error", 429: "rate_limit_error", 503: "unavailable_error",
           507: "insufficient_storage"}


class ApiError(Exception):
    """An error the service answers on purpose: `status`, a message naming the fix, a type."""

    def __init__(self, status: int, message: str, type_: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type_ or PHRASES.get(status, "error")
        self.headers = headers


def error_response(status: int, message: str, type_: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": type_ or PHRASES.get(status,
                                                                                    "error")}},
                        status_code=status, headers=headers)


def status_of(exc: BaseException) -> int:
    """The status a library exception answers with (500: not one the library raises on purpose)."""
    if isinstance(exc, DiskFullError):
        return 507
    if isinstance(exc, ConcurrentWriteError):
        return 409
    if isinstance(exc, (CorruptIndexError, EncoderMismatchError, UnavailableError,
                        BrokenModelError)):
        return 503  # the index on disk cannot serve: the operator's fix, not the client's
    if isinstance(exc, KeyError):
        return 404
    if isinstance(exc, (ValueError, TypeError, OverflowError)):
        return 422  # the library's input checks (QueryError is a ValueError)
    return 500


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        if err.get("type") == "json_invalid":  # loc: ("body", character offset)
            at = err.get("loc", ("body", "?"))[-1]
            why = (err.get("ctx") or {}).get("error", "")
            return f"the body is not valid JSON (at character {at}: {why}); send a JSON object"
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        message = err.get("msg", "invalid")
        if err.get("type") in ("unfit_body", "token_ids", "nested_list"):  # ours: say it whole
            return message
        if err.get("type") == "unknown_fields":
            return f"{where}: {message}" if where else message
        parts.append(f"{where}: {message}" if where else f"body: {message}")
    return "invalid request: " + "; ".join(parts)


def _not_json(exc: RequestValidationError, request: Request) -> str | None:
    """Where the body was not read as JSON at all (FastAPI reads only a JSON content type and
    passes other bodies on as bytes), what to send instead."""
    for err in exc.errors():
        if err.get("loc") == ("body",) and isinstance(err.get("input"), (bytes, bytearray)):
            sent = request.headers.get("content-type")
            said = f"Content-Type is {sent!r}" if sent else "there is no Content-Type header"
            return (f"the body was not read as JSON: {said}; send it with Content-Type: "
                    "application/json")
    return None


def _unparsed(exc: HTTPException) -> str | None:
    """FastAPI's "There was an error parsing the body", said with its cause."""
    cause = exc.__cause__
    if isinstance(cause, UnicodeDecodeError):
        return (f"the body is not valid UTF-8 (byte {cause.start}: "
                f"0x{cause.object[cause.start]:02x}); send JSON encoded as UTF-8")
    if isinstance(cause, RecursionError):
        return ("the body nests arrays or objects deeper than this server reads (about 1,000 "
                "levels): no field of the API nests more than a few; send a flatter body")
    if cause is not None:
        return f"the body could not be read as JSON ({type(cause).__name__}: {cause})"[:300]
    return None


def _route_message(request: Request, status: int, detail: str, headers) -> str:
    """Starlette's bare 404 / 405 phrases, said with the route and what would be accepted."""
    path = request.url.path
    if status == 404 and detail == "Not Found":
        if path.startswith("/v1/indexes/") and ".." in path.split("/"):
            return (f"no route {request.method} {path}: an index name is one folder under the "
                    "root, never '..' or a path; GET /v1/indexes lists them")
        return f"no route {request.method} {path}; see /docs"
    if status == 405 and detail == "Method Not Allowed":
        allowed = (headers or {}).get("Allow", "")
        return f"{request.method} is not allowed on {path}" + \
            (f"; use {allowed}" if allowed else "") + " (see /docs)"
    return detail


def install(app: FastAPI) -> None:
    """Register the handlers that turn every exception into the JSON error shape."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError):
        return error_response(exc.status, exc.message, exc.type, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        not_json = _not_json(exc, request)
        if not_json:
            return error_response(415, not_json)
        return error_response(422, _validation_message(exc))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException):
        unparsed = _unparsed(exc) if exc.status_code == 400 else None
        if unparsed:
            return error_response(422, unparsed)
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        headers = getattr(exc, "headers", None)
        return error_response(exc.status_code,
                              _route_message(request, exc.status_code, detail, headers),
                              headers=headers)

    async def library_error(request: Request, exc: Exception):
        message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        return error_response(status_of(exc), message)

    for kind in (ValueError, TypeError, KeyError, OverflowError):  # the library's; by MRO
        app.add_exception_handler(kind, library_error)


def unexpected(exc: BaseException, method: str, path: str) -> JSONResponse:
    """The 500 for an exception no handler knew: logged (one line; the traceback at DEBUG)."""
    log.error("%s %s failed: %s: %s", method, path, type(exc).__name__,
              (str(exc).splitlines() or [""])[0][:300], exc_info=log.isEnabledFor(logging.DEBUG))
    return error_response(500, f"internal error ({type(exc).__name__}); it was logged",
                          "internal_error")
