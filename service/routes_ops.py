"""What operators ask the service: `/health` (the process answers), `/ready` (it can serve: every
index readable, every index's encoder loaded) and `/metrics` (Prometheus text). None of them
counts against --max-concurrent-requests. With `--keys`, `/health` and `/ready` answer without
a key and name no index (`/ready` counts the damaged and loading ones); `/metrics` needs admin
on `*`."""

from __future__ import annotations

import threading

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from .errors import log
from .openapi import errors
from .shared import json_response, service_of

router = APIRouter(tags=["service"])


@router.get("/health")
def health(request: Request) -> dict:
    """Liveness: the process answers (nothing is read or loaded)."""
    svc = service_of(request)
    return {"status": "ok", "indexes": len(svc.indexes.names()),
            "encoders_loaded": len(svc.encoders.loaded())}


@router.get("/ready", responses=errors(503))
def ready(request: Request) -> Response:
    """Readiness: 200 once every index under the root is readable and its encoder is in memory;
    else 503 saying what is missing. The first call starts loading the encoders in the
    background (a probe never waits for a load), so a later one finds them loaded."""
    svc = service_of(request)
    names = svc.indexes.names()
    damaged, wanted = {}, []
    for name in names:
        summary = svc.indexes.summary(name)
        if "error" in summary or name in svc.unopened:
            damaged[name] = summary.get("error") or svc.unopened[name]
        else:
            wanted.append(name)
    missing = [n for n in wanted if n not in svc.warmed]
    if missing or svc.unopened:
        _warm(svc, missing + list(svc.unopened))  # a failed one is tried again
    keyed = svc.gate.keys is not None  # answered without a key: counts, never names
    body = {"status": "ready" if not damaged and not missing else "not ready",
            "indexes": len(names), "encoders_loaded": len(svc.encoders.loaded()),
            "damaged": len(damaged) if keyed else damaged,
            "loading": len(missing) if keyed else missing}
    response = json_response(body)
    if damaged or missing:
        reasons = [f"index {n!r} cannot be read: {why}" for n, why in damaged.items()]
        if missing:
            reasons.append(f"loading the encoders of {', '.join(missing)}")
        if keyed:
            reasons = [f"{len(damaged)} indexes cannot be read (an admin's /v1/indexes says "
                        "why)"] * bool(damaged) + [f"loading the encoders of {len(missing)} indexes"
                                            ] * bool(missing)
        response = json_response({"error": {"message": "; ".join(reasons),
                                            "type": "unavailable_error"}, **body})
        response.status_code = 503
        response.headers["Retry-After"] = "1"
    return response


def _warm(svc, names: list[str]) -> None:
    """Load the encoders of `names` on a background thread (one warm-up at a time)."""
    if not svc.warming.acquire(blocking=False):
        return

    def run() -> None:
        try:
            for name in names:
                try:
                    svc.indexes.get(name)  # opens it with its encoder, loaded once
                    svc.warmed.add(name)
                    svc.unopened.pop(name, None)
                except Exception as exc:  # noqa: BLE001 - /ready reports it
                    svc.unopened[name] = f"{type(exc).__name__}: {exc}"[:300]
                    log.warning("readiness: index %s could not be opened: %s", name, exc)
        finally:
            svc.warming.release()

    threading.Thread(target=run, name="warm-up", daemon=True).start()


@router.get("/metrics", response_class=Response,
            responses={200: {"content": {CONTENT_TYPE_LATEST: {}},
                             "description": "Prometheus text format"}})
def metrics(request: Request) -> Response:
    """Prometheus metrics: requests by route and status, latency histograms by route, encode
    batch sizes and queue waits, loaded encoders, index versions, process memory."""
    return Response(generate_latest(service_of(request).metrics.registry),
                    media_type=CONTENT_TYPE_LATEST)
