"""How the service's bad-input cases talk to it: the app in-process through FastAPI's TestClient
over W/service/news (a copy of W/idx), with an API key so the document routes are on; one
request a case, its answer read as an `Outcome`. Shared by cases_service and
cases_service_odd."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable

from .probe import Outcome

KEY = "probe-key-0123456789abcdef"
_clients: dict[str, object] = {}


def service_client(ws):
    key = str(ws.root)
    if key not in _clients:
        from fastapi.testclient import TestClient

        from service import ServiceConfig, create_app

        root = ws.root / "service"
        if not (root / "news").exists():
            shutil.copytree(ws.root / "idx", root / "news")
        app = create_app(ServiceConfig(index_root=root, api_key=KEY))
        _clients[key] = TestClient(app, raise_server_exceptions=False)
    return _clients[key]


def request(method: str, path: str, body=None, *, raw: bytes | None = None,
            key: str | None = KEY, content_type: str | None = "application/json",
            app=service_client) -> Callable[..., Outcome]:
    """A case runner: one request; its status and error message are the outcome.
    `content_type` None sends none; `app(ws)`: the client to send it with."""

    def run(ws) -> Outcome:
        headers = {"content-type": content_type} if content_type else {}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        content = raw if raw is not None else json.dumps(body).encode()
        return answered(app(ws).request(method, path, content=content, headers=headers))

    return run


def answered(response) -> Outcome:
    """The outcome of one HTTP answer: its status, and its error's type and message."""
    code = response.status_code
    try:
        payload = response.json()
    except ValueError:
        return Outcome(f"HTTP {code}", f"not JSON: {response.text[:100]}", traceback=True,
                       refused=True, code=code)
    broken = "Traceback" in response.text or code == 500  # 503, 507: said on purpose
    if code >= 400:
        error = payload.get("error") if isinstance(payload, dict) else None
        if not isinstance(error, dict) or set(error) != {"message", "type"}:
            return Outcome(f"HTTP {code}", f"not the error shape: {response.text[:100]}",
                           traceback=True, refused=True, code=code)
        return Outcome(f"HTTP {code} {error['type']}", error["message"], traceback=broken,
                       refused=True, code=code)
    return Outcome(f"HTTP {code}", response.text[:120], traceback=broken, code=code)
