"""`create_app(config)`: the FastAPI application. One `Service` (the encoders and the indexes,
shared by every request) hangs on `app.state`; `Guard` wraps everything: the body-size limit,
a JSON 500 for anything unexpected, and one log line per request."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from fastapi import FastAPI

from .config import ServiceConfig
from .encoders import Encoders
from .errors import error_response, install, unexpected
from .indexes import Indexes

access = logging.getLogger("bertscope.service.access")

DESCRIPTION = """Retrieval for RAG over BERTScope indexes: OpenAI-compatible `/v1/embeddings`,
search (dense, BM25, hybrid), context packing into a token budget, document writes (with an
API key), explanations. Errors are `{"error": {"message", "type"}}`. See docs/API.md."""


@dataclass
class Service:
    config: ServiceConfig
    encoders: Encoders
    indexes: Indexes


def create_app(config: ServiceConfig | None = None, *, encoders: Encoders | None = None
               ) -> FastAPI:
    """The service over `config.index_root`; `encoders`: a registry to share (tests pass one
    with a counting loader)."""
    from .routes_embeddings import router as embeddings
    from .routes_search import router as search
    from .routes_write import router as write

    config = config or ServiceConfig()
    encoders = encoders or Encoders(config)
    app = FastAPI(title="BERTScope retrieval service", version="1", description=DESCRIPTION)
    app.state.service = Service(config, encoders, Indexes(config.index_root, encoders))
    install(app)
    for router in (search, embeddings, write):
        app.include_router(router)
    app.add_middleware(Guard, max_body_bytes=config.limits.max_body_bytes)
    return app


class Guard:
    """Pure ASGI middleware: 413 past `max_body_bytes` (declared or streamed), a JSON 500 for an
    exception no handler took (nothing is re-raised to print a traceback), one access line."""

    def __init__(self, app, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
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
            else:
                await self.app(scope, counted, tracked)
                if state["too_large"] and not state["sent"]:
                    await reply(too_large(limit))
        except Exception as exc:  # noqa: BLE001 - the one place an unexpected error ends
            if state["too_large"] and not state["sent"]:
                await reply(too_large(limit))
            elif not state["sent"]:
                await reply(unexpected(exc, scope["method"], scope["path"]))
            else:
                unexpected(exc, scope["method"], scope["path"])
        finally:
            client = scope.get("client") or ("-", 0)
            access.info('%s "%s %s" %d %.1fms', client[0], scope["method"], scope["path"],
                        state["status"], (time.perf_counter() - started) * 1000)


def too_large(limit: int):
    return error_response(413, f"request body over the limit of {limit} bytes "
                               "(max_body_bytes); send fewer or shorter texts per request")


def _content_length(scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None

