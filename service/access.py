"""Who may call what, with `--keys`: `Access`, the ASGI middleware that runs before any route,
and `readers_of(request)`, who the caller is for the per-document filter.

Each route has one rule in `RULES` (a route without one is refused, and a test fails):
- OPEN: `/health`, `/ready`, the API docs: no key;
- ANY: any valid key (`/v1/indexes` then lists only the indexes the caller may read,
  `/v1/models` only their names; `/v1/explain` checks its body's `index` in the route);
- ("read" | "write", "name"): that level on the index named in the path, checked from the
  name alone before anything looks the index up, so a refusal (403) is the same bytes whether
  the index exists or not, and a 404 answers only a caller allowed that name;
- ALL_ADMIN: `admin` on `*` (`/metrics` names every index).

No key or a wrong one is a 401 with `WWW-Authenticate: Bearer`; past `--rate-limit` a 429 with
Retry-After (a bucket per principal, and one per client address for keys not verified yet:
each costs a scrypt per stored hash). Each refusal is counted in `/metrics` by reason and
written to the audit log.
Without `--keys` nothing here runs: today's open reads, writes by `--api-key-file`."""

from __future__ import annotations

import logging
import math

from fastapi import Request
from starlette._utils import get_route_path  # the path the router matches (less root_path)
from starlette.concurrency import run_in_threadpool

from .errors import ApiError, error_response
from .gate import Gate

log = logging.getLogger("bertscope.service.access")
OPEN, ANY, ALL_ADMIN = "open", "any", "admin of *"
RULES: dict[str, object] = {
    "/health": OPEN, "/ready": OPEN, "/docs": OPEN, "/redoc": OPEN, "/openapi.json": OPEN,
    "/docs/oauth2-redirect": OPEN, "/static-offline-docs": OPEN,
    "/metrics": ALL_ADMIN,
    "/v1/indexes": ANY, "/v1/models": ANY, "/v1/embeddings": ANY, "/v1/tokenize": ANY,
    "/v1/explain": ANY,
    "/v1/indexes/{name}/search": ("read", "name"),
    "/v1/indexes/{name}/context": ("read", "name"),
    "/v1/indexes/{name}/documents/{doc_id:path}/pages/{page}.png": ("read", "name"),
    "/v1/indexes/{name}/documents/{doc_id:path}/highlight": ("read", "name"),
    "/v1/indexes/{name}/documents": ("write", "name"),
}
UNAUTHORIZED = ("this server needs a key: send Authorization: Bearer KEY (a key made by "
                "`python -m service keys add`)")
WRONG_KEY = "that key is not valid here (unknown, or revoked): send a current key"
FORBIDDEN = ("this key's scopes do not allow {level} on this index; ask whoever keeps the "
             "server's keys file for a scope")
NO_RULE = "this route has no access rule on this server; it is refused"
RATE = ("over the rate limit ({rate:g} requests a second for each principal, and for new keys "
        "from one address: --rate-limit); retry after the Retry-After seconds")


def api_routes(routes) -> list:
    """The app's routes, each one (FastAPI keeps an included router as one entry)."""
    out = []
    for route in routes:
        inner = getattr(route, "original_router", None)
        out += api_routes(inner.routes) if inner is not None else [route]
    return out


def match(routes, scope) -> tuple[object | None, dict]:
    """(the route `scope` goes to, its path parameters), a route of another method when none
    takes this one (the app answers 405), or (None, {})."""
    partial, path = None, get_route_path(scope)
    for route in routes:
        regex = getattr(route, "path_regex", None)
        found = regex.match(path) if regex is not None else None
        if not found:
            continue
        convert = getattr(route, "param_convertors", {})
        params = {k: convert[k].convert(v) if k in convert else v
                  for k, v in found.groupdict().items()}
        methods = getattr(route, "methods", None)
        if not methods or scope["method"] in methods:
            return route, params
        partial = partial or (route, params)
    return partial or (None, {})


def _bearer(scope) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if kind.lower() == "bearer" else ""
    return None


class Access:
    def __init__(self, app, *, gate: Gate, routes) -> None:
        self.app, self.gate, self._routes, self._flat = app, gate, routes, None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or self.gate.keys is None:
            return await self.app(scope, receive, send)
        if self._flat is None:
            self._flat = api_routes(self._routes)
        route, params = match(self._flat, scope)
        template = getattr(route, "path", None)
        rule = RULES.get(template) if route is not None else ANY  # no route: the app's 404
        if rule == OPEN:
            return await self.app(scope, receive, send)
        index = params.get("name")
        refusal = await self._refusal(scope, rule, index)
        if refusal is not None:
            status, reason, message, headers = refusal
            if route is not None:
                scope["route"] = route  # the metrics' label: the template, not the raw path
            self.gate.refused(scope.get("state", {}).get("principal"), scope["method"],
                              template or "unmatched", index, status, reason)
            response = error_response(status, message, headers=headers)
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)

    async def _refusal(self, scope, rule, index):
        key = _bearer(scope)
        if not key:
            return 401, "no_key", UNAUTHORIZED, {"WWW-Authenticate": "Bearer"}
        keys, buckets = self.gate.keys, self.gate.buckets
        principal = keys.cached(key)
        if principal is keys.MISS:  # a key not seen since the file was read: scrypt
            client = (scope.get("client") or ("-",))[0]
            wait = buckets.take(f"unverified key from {client}") if buckets else 0
            if wait > 0:  # guessing keys costs the server a hash each: limited per address
                return 429, "rate_limit", RATE.format(rate=buckets.rate), \
                    {"Retry-After": str(max(1, math.ceil(wait)))}
            principal = await run_in_threadpool(keys.principal, key)  # off the event loop
        if principal is None:
            return 401, "bad_key", WRONG_KEY, {"WWW-Authenticate": 'Bearer error="invalid_token"'}
        scope.setdefault("state", {})["principal"] = principal
        if rule is None:
            log.error("route %s %s has no access rule: refused", scope["method"], scope["path"])
            return 403, "no_rule", NO_RULE, None
        if buckets is not None:
            wait = buckets.take(principal.name)
            if wait > 0:
                return 429, "rate_limit", RATE.format(rate=buckets.rate), \
                    {"Retry-After": str(max(1, math.ceil(wait)))}
        if rule == ALL_ADMIN and not principal.admin_of_all():
            return 403, "scope", FORBIDDEN.format(level="admin of every index ('*')"), None
        if isinstance(rule, tuple) and not principal.may(rule[0], index or ""):
            return 403, "scope", FORBIDDEN.format(level=rule[0]), None
        return None


def principal_of(request: Request):
    """The caller's `Principal` (None without --keys)."""
    return request.scope.get("state", {}).get("principal")


def readers_of(request: Request) -> frozenset[str] | None:
    """Who the caller is, for the per-document `access` filter of the index's reads: None (no
    restriction) on a server without `--keys`; else the principal's name and its groups. An
    admin is filtered like any reader: a document's `access` list is the only gate on it (an
    index's admin may still replace or delete it by id)."""
    principal = principal_of(request)
    if getattr(request.app.state.service.gate, "keys", None) is None:
        return None
    return principal.readers if principal is not None else frozenset()


def may(request: Request, level: str, index: str) -> bool:
    """Whether the caller may `level` index `index` (always, without --keys)."""
    if request.app.state.service.gate.keys is None:
        return True
    principal = principal_of(request)
    return principal is not None and principal.may(level, index)


def require(request: Request, level: str, index: str) -> None:
    """A 403 (audited) unless the caller may `level` index `index`: for an index named in a
    body rather than the path (`/v1/explain`)."""
    if may(request, level, index):
        return
    gate = request.app.state.service.gate
    gate.refused(principal_of(request), request.method, request.url.path, index, 403, "scope")
    raise ApiError(403, FORBIDDEN.format(level=level))
