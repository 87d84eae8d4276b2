"""`Guard`: the pure ASGI middleware around every request. It refuses work past
`max_concurrent_requests` (a JSON 429 with Retry-After; health, readiness, metrics and the docs
always answer), answers 413 past `max_body_bytes` (declared or streamed) and past
`max_json_items` (counted on the bytes of a JSON body before anything parses it), turns an
exception no handler took into a JSON 500 (nothing re-raised to print a traceback), counts each
request in the metrics by route template, and writes one access line."""

from __future__ import annotations

import logging
import time

from starlette.requests import ClientDisconnect

from .body_size import json_items
from .errors import error_response, unexpected
from .inline import InFlight
from .metrics import Metrics

access = logging.getLogger("bertscope.service.access")

ALWAYS = frozenset({"/health", "/ready", "/metrics", "/docs", "/redoc", "/openapi.json",
                    "/docs/oauth2-redirect"})
DOCS_ASSETS = "/static-offline-docs/"
OVER_LIMIT = "(over --max-concurrent-requests)"


class Guard:
    def __init__(self, app, *, max_body_bytes: int, max_concurrent: int | None,
                 metrics: Metrics, in_flight: InFlight, max_json_items: int | None = None
                 ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_json_items = max_json_items
        self.max_concurrent = max_concurrent
        self.metrics = metrics
        self.in_flight = in_flight  # limited requests under way (one event loop: no lock)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]
        limited = path not in ALWAYS and not path.startswith(DOCS_ASSETS)
        if limited and self.max_concurrent is not None and self.in_flight.n >= self.max_concurrent:
            self.metrics.refused.inc()
            self.metrics.requests.labels(OVER_LIMIT, scope["method"], "429").inc()
            return await busy(self.max_concurrent)(scope, receive, send)
        if limited:
            self.in_flight.n += 1
            self.metrics.in_flight.inc()
        try:
            await self._guarded(scope, receive, send)
        finally:
            if limited:
                self.in_flight.n -= 1
                self.metrics.in_flight.dec()

    async def _guarded(self, scope, receive, send) -> None:
        started = time.perf_counter()
        state = {"status": 500, "sent": False, "too_large": False, "received": 0}
        limit = self.max_body_bytes

        async def reply(response) -> None:
            state["status"], state["sent"] = response.status_code, True
            await response(scope, receive, send)

        async def counted():
            message = await receive()
            if message["type"] == "http.request":
                state["received"] += len(message.get("body", b""))
                if state["received"] > limit:
                    state["too_large"] = True
                    return {"type": "http.disconnect"}  # the app stops reading here
            return message

        async def tracked(message) -> None:
            if state["too_large"]:
                if not state["sent"]:
                    await reply(too_large(limit))
                return  # the app's own answer to a cut body is replaced by the 413
            if message["type"] == "http.response.start":
                state["status"], state["sent"] = message["status"], True
            await send(message)

        try:
            declared = _content_length(scope)
            if declared is not None and declared > limit:
                await reply(too_large(limit))
                return
            receive_app = counted
            if self.max_json_items is not None and _reads_json(scope):
                whole = await _whole_body(counted)
                if state["too_large"]:
                    await reply(too_large(limit))
                    return
                items = json_items(whole.get("body", b""))
                if items > self.max_json_items:
                    await reply(too_many(items, self.max_json_items))
                    return
                receive_app = _replay(whole, receive)
            await self.app(scope, receive_app, tracked)
            if state["too_large"] and not state["sent"]:
                await reply(too_large(limit))
        except ClientDisconnect:
            if state["too_large"] and not state["sent"]:
                await reply(too_large(limit))
            elif not state["sent"]:
                state["status"] = 499  # the client left (or its body timed out): no answer
        except Exception as exc:  # noqa: BLE001 - the one place an unexpected error ends
            if state["too_large"] and not state["sent"]:
                await reply(too_large(limit))
            elif not state["sent"]:
                await reply(unexpected(exc, scope["method"], scope["path"]))
            else:
                unexpected(exc, scope["method"], scope["path"])
        finally:
            elapsed = time.perf_counter() - started
            route = _route_of(scope)
            self.metrics.requests.labels(route, scope["method"], str(state["status"])).inc()
            self.metrics.seconds.labels(route, scope["method"]).observe(elapsed)
            client = scope.get("client") or ("-", 0)
            access.info('%s "%s %s" %d %.1fms', client[0], scope["method"], scope["path"],
                        state["status"], elapsed * 1000)


def _route_of(scope) -> str:
    """The metrics' route label: the route's template, never the raw path of an API route
    (index names would make a label each)."""
    route = getattr(scope.get("route"), "path", None)
    if route:
        return route
    path = scope["path"]
    if path in ALWAYS:
        return path
    return DOCS_ASSETS.rstrip("/") if path.startswith(DOCS_ASSETS) else "unmatched"


def too_large(limit: int):
    return error_response(413, f"request body over the limit of {limit} bytes "
                               "(max_body_bytes); send fewer or shorter texts per request")


def too_many(items: int, limit: int):
    return error_response(413, f"the JSON body holds about {items:,} items (object members and "
                               f"array elements); this server reads at most {limit:,} in one "
                               "request (max_json_items): send fewer documents or fields per "
                               "request, and only the fields the API names")


async def _whole_body(receive) -> dict:
    """The request's body as one message (or the disconnect that ended it)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return message
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}


def _replay(whole: dict, receive):
    """A receive that gives `whole` first, then whatever `receive` gives (a disconnect)."""
    pending = [whole]

    async def replayed():
        return pending.pop() if pending else await receive()

    return replayed


def _reads_json(scope) -> bool:
    """Whether the app will parse this request's body as JSON (FastAPI does when there is no
    Content-Type too)."""
    if scope["method"] not in ("POST", "PUT", "PATCH", "DELETE"):
        return False
    for key, value in scope.get("headers", ()):
        if key == b"content-type":
            kind = value.split(b";")[0].strip().lower()
            return kind == b"application/json" or kind.endswith(b"+json")
    return True


def busy(limit: int):
    return error_response(429, f"the server is answering {limit} requests already "
                               "(--max-concurrent-requests); retry after the Retry-After "
                               "seconds", "rate_limit_error", headers={"Retry-After": "1"})


def _content_length(scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
