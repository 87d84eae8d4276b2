"""`create_app(config)`: the FastAPI application. One `Service` (the encoders, the indexes and the
metrics, shared by every request) hangs on `app.state`; `Guard` (service/guard.py) wraps
everything, then `Access` (service/access.py: keys, scopes, rate limits, with `--keys`).
`/docs` and `/redoc` load their scripts from this server (fastapi-offline's copies of
Swagger UI and ReDoc): nothing is fetched from another host."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi_offline import FastAPIOffline

from common.keys.keystore import KeyStore

from .access import OPEN, RULES, Access
from .audit import AuditLog
from .config import ServiceConfig
from .encoders import Encoders
from .errors import install
from .gate import Gate
from .guard import Guard
from .indexes import Indexes
from .inline import InFlight, Inline
from .metrics import Metrics
from .openapi import with_keys, with_limits
from .ratelimit import TokenBuckets

DESCRIPTION = """Retrieval for RAG over BERTScope indexes: OpenAI-compatible `/v1/embeddings`,
search (dense, BM25, hybrid), context packing into a token budget, document writes (with an
API key), explanations, tokenization. Errors are `{"error": {"message", "type"}}`; the limits
in this schema are the ones this server was started with. See docs/API.md."""


@dataclass
class Service:
    config: ServiceConfig
    encoders: Encoders
    indexes: Indexes
    metrics: Metrics
    warmed: set[str] = field(default_factory=set)  # indexes opened by /ready's warm-up
    warming: threading.Lock = field(default_factory=threading.Lock)  # one warm-up at a time
    unopened: dict[str, str] = field(default_factory=dict)  # index -> why the warm-up failed
    in_flight: InFlight = field(default_factory=InFlight)  # counted by Guard
    inline: Inline | None = None  # light requests on the event loop (service/inline.py)
    gate: Gate | None = None  # keys, rate limits, audit (service/access.py)


def create_app(config: ServiceConfig | None = None, *, encoders: Encoders | None = None
               ) -> FastAPI:
    """The service over `config.index_root`; `encoders`: a registry to share (tests pass one
    with a counting loader). A keys file or audit log that cannot be used raises
    (`KeysFileError`, `AuditLogError`: each names the file)."""
    from .routes_embeddings import EXPLAIN_PASSAGE_CHARS
    from .routes_embeddings import router as embeddings
    from .routes_ops import router as ops
    from .routes_pages import router as pages
    from .routes_search import router as search
    from .routes_write import router as write

    config = config or ServiceConfig()
    encoders = encoders or Encoders(config)
    metrics = Metrics()
    if encoders.observe is None:
        encoders.observe = metrics.encoded
    # validatorUrl null: Swagger UI would otherwise send the schema to an online validator
    app = FastAPIOffline(title="BERTScope retrieval service", version="1",
                         description=DESCRIPTION, swagger_ui_parameters={"validatorUrl": None})
    indexes = Indexes(config.index_root, encoders, list_in_404=config.keys_file is None)
    service = Service(config, encoders, indexes, metrics)
    service.inline = Inline(service.in_flight, on_loop=metrics.on_loop)
    service.gate = gate_of(config, metrics)
    metrics.watch(service)
    app.state.service = service
    install(app)
    for router in (ops, search, embeddings, pages, write):
        app.include_router(router)

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version,
                                 description=app.description, routes=app.routes)
            app.openapi_schema = with_limits(schema, config.limits, EXPLAIN_PASSAGE_CHARS)
            if config.keys_file is not None:
                with_keys(app.openapi_schema, lambda path: RULES.get(path) != OPEN)
        return app.openapi_schema

    app.openapi = openapi
    app.add_middleware(Access, gate=service.gate, routes=app.routes)  # inside Guard
    app.add_middleware(Guard, max_body_bytes=config.limits.max_body_bytes,
                       max_concurrent=config.max_concurrent_requests, metrics=metrics,
                       in_flight=service.in_flight,
                       max_json_items=config.limits.max_json_items)
    return app


def gate_of(config: ServiceConfig, metrics: Metrics) -> Gate:
    keys = KeyStore(config.keys_file) if config.keys_file is not None else None
    buckets = TokenBuckets(config.rate_limit) if config.rate_limit is not None else None
    audit = (AuditLog(config.audit_log, max_bytes=config.audit_max_bytes)
             if config.audit_log is not None else None)
    return Gate(metrics, keys, buckets, audit)
