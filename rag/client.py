"""`ServiceClient`: the retrieval service over HTTP (httpx), returning the library's own types
(`indexer.Hit`, numpy vectors) so in-process and remote retrievers share one code path. An error
answer raises `ServiceError` with the service's message."""

from __future__ import annotations

import base64
import os
from typing import Any

import numpy as np

from indexer import Hit

__all__ = ["API_KEY_ENV", "ServiceClient", "ServiceError"]
API_KEY_ENV = "BERTSCOPE_API_KEY"


class ServiceError(RuntimeError):
    def __init__(self, status: int, message: str, type_: str) -> None:
        super().__init__(f"{status} {type_}: {message}")
        self.status, self.message, self.type = status, message, type_


class ServiceClient:
    """`url` of a running `python -m service`; `api_key`: the caller's key, sent as
    `Authorization: Bearer` on every call, reads included (a server with `--keys` answers only
    what its scopes allow); None: the environment's BERTSCOPE_API_KEY, if set; `transport`: an
    httpx transport to inject (tests, or an ASGI app in-process)."""

    def __init__(self, url: str, *, api_key: str | None = None, timeout: float = 60,
                 transport=None) -> None:
        import httpx

        api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV) or None
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout,
                                  transport=transport)

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        response = self._http.request(method, path, json=body)
        try:
            payload = response.json()
        except ValueError:
            payload = {}
        if response.status_code >= 400:
            error = payload.get("error", {}) if isinstance(payload, dict) else {}
            raise ServiceError(response.status_code, error.get("message", response.text[:300]),
                               error.get("type", "error"))
        return payload

    def indexes(self) -> list[dict]:
        return self._call("GET", "/v1/indexes")["data"]

    def search(self, index: str, query: str, k: int = 10, **options: Any) -> list[Hit]:
        """`options`: the search endpoint's (mode, filters, weights, fusion, per_chunk)."""
        got = self._call("POST", f"/v1/indexes/{index}/search",
                         {"query": query, "k": k, **options})
        return [Hit(h["doc_id"], h["chunk_id"], h["score"], h["rank"], h["text"], h["title"],
                    h["start"], h["end"], h["metadata"]) for h in got["hits"]]

    def context(self, index: str, query: str, max_tokens: int = 512, **options: Any) -> dict:
        return self._call("POST", f"/v1/indexes/{index}/context",
                          {"query": query, "max_tokens": max_tokens, **options})

    def embed(self, model: str, texts: list[str], input_type: str | None = None) -> np.ndarray:
        """(n, dim) float32, as /v1/embeddings sends them (base64)."""
        body = {"model": model, "input": list(texts), "encoding_format": "base64"}
        if input_type:
            body["input_type"] = input_type
        data = sorted(self._call("POST", "/v1/embeddings", body)["data"],
                      key=lambda d: d["index"])
        return np.stack([np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4")
                         for d in data])

    def upsert(self, index: str, documents: list[dict]) -> dict:
        return self._call("POST", f"/v1/indexes/{index}/documents", {"documents": documents})

    def delete(self, index: str, ids: list[str]) -> dict:
        return self._call("DELETE", f"/v1/indexes/{index}/documents", {"ids": list(ids)})

    def close(self) -> None:
        self._http.close()
