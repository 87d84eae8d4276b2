"""The OpenAPI schema, told true: every route declares the error statuses it answers (each with
the one error shape), and the request models carry the limits this server was started with
(maximum items, lengths, ranges) and the rule every text input follows (something visible), so a
request the schema calls valid is one the server accepts."""

from __future__ import annotations

import functools
import sys
from typing import Any

from pydantic import BaseModel

from common.metadata import ALLOWED_PATTERN

from .config import Limits
from .names import INDEX_NAME  # an index name: one folder under the root


class ErrorDetail(BaseModel):
    message: str
    type: str


class ErrorBody(BaseModel):
    """Every error: `{"error": {"message", "type"}}`."""

    error: ErrorDetail


WHY = {
    400: "an index name that could leave the root",
    401: "a write without the right Bearer key",
    403: "document writes are off (no --api-key-file)",
    404: "an unknown index or model (the message lists them)",
    408: "the body stopped arriving (--body-timeout)",
    409: "a write that conflicts with an existing id or another writer",
    413: "a body, batch or input count over its limit (the message names it)",
    415: "a body that is not sent as Content-Type: application/json",
    422: "invalid input: the message names the field and the fix",
    429: "more requests at once than --max-concurrent-requests; see Retry-After",
    500: "an unexpected error (logged)",
    503: "the index on disk cannot serve, or the service is not ready",
    507: "the disk is full (nothing published was lost)",
}

# what every route with a JSON body may answer, and what every limited route may answer
BODY = (408, 413, 415, 422)
LIMITED = (429, 500)


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: each status with the error shape and when it happens."""
    return {s: {"model": ErrorBody, "description": WHY[s]} for s in sorted(set(statuses))}


@functools.cache
def visible_pattern() -> str:
    """A regex matching one character a reader can see (`common.text`'s `has_visible_text`,
    as a JSON Schema `pattern`: a text matches when it holds one): any character but the
    invisible ones (whitespace, control, format, separators, fillers, variation selectors),
    listed as a negated class (a fuzzer draws from it fast)."""
    from common.text import has_visible_text

    ranges, start = [], None
    for cp in range(sys.maxunicode + 2):
        hidden = cp <= sys.maxunicode and not 0xD800 <= cp <= 0xDFFF and \
            not has_visible_text(chr(cp))
        if not hidden and start is not None:
            ranges.append((start, cp - 1))
            start = None
        elif hidden and start is None:
            start = cp

    def char(cp: int) -> str:
        return f"\\u{cp:04x}" if cp <= 0xFFFF else chr(cp)  # astral: the character itself
    return "[^" + "".join(char(a) if a == b else f"{char(a)}-{char(b)}" for a, b in ranges) + "]"


def _text(max_length: int | None = None) -> dict:
    bound = {} if max_length is None else {"maxLength": max_length}
    return {"minLength": 1, **bound, "pattern": visible_pattern()}


def _texts(max_items: int, max_length: int) -> dict:
    return {"minItems": 1, "maxItems": max_items, "items": {"type": "string",
                                                            **_text(max_length)}}


def _limits_of(limits: Limits, explain_passage_chars: int) -> dict[str, dict[str, dict]]:
    """Model → field → what its schema gains from the configured limits."""
    query = _text(limits.max_query_chars)
    text_or_texts = {"anyOf": [{"type": "string", **_text(limits.max_text_chars)},
                               {"type": "array", **_texts(limits.max_inputs,
                                                          limits.max_text_chars)}]}
    return {
        "SearchRequest": {"k": {"maximum": limits.max_k}, "query": query,
                          "queries": _texts(limits.max_inputs, limits.max_query_chars),
                          "weights": {"items": {"type": "number", "minimum": 0}}},
        "ContextRequest": {"k": {"maximum": limits.max_k}, "query": query,
                           "max_tokens": {"maximum": limits.max_context_tokens},
                           "weights": {"items": {"type": "number", "minimum": 0}}},
        "EmbeddingsRequest": {"input": text_or_texts},
        "TokenizeRequest": {"input": text_or_texts},
        "DocumentsRequest": {"documents": {"maxItems": limits.max_documents}},
        "DocumentIn": {"id": _text(),
                       "text": _text(limits.max_text_chars),
                       "metadata": {"propertyNames": {"pattern": ALLOWED_PATTERN}}},
        "DeleteRequest": {"ids": {"maxItems": limits.max_documents,
                                  "items": {"type": "string", **_text()}}},
        "ExplainRequest": {"query": query, "passage": _text(explain_passage_chars),
                           "index": {"pattern": INDEX_NAME}},
    }


def _weights_positive(schema: dict) -> None:
    """Hybrid weights: at least one of the two above 0 (both 0 give every hit score 0)."""
    weights = schema["properties"]["weights"]
    array = next(s for s in weights.get("anyOf", [weights]) if s.get("type") == "array")
    array["anyOf"] = [{"prefixItems": [{"exclusiveMinimum": 0}]},
                      {"prefixItems": [{}, {"exclusiveMinimum": 0}]}]


def with_limits(schema: dict, limits: Limits, explain_passage_chars: int) -> dict:
    """`schema` (an OpenAPI document) with the limits written into its request models and the
    index-name rule into its paths."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter.get("name") == "name":
                    parameter["schema"]["pattern"] = INDEX_NAME
    models = schema.get("components", {}).get("schemas", {})
    for model, fields in _limits_of(limits, explain_passage_chars).items():
        properties = models.get(model, {}).get("properties", {})
        for field, extra in fields.items():
            if field not in properties:
                continue
            target = properties[field]
            # an optional field is anyOf [its type, null]: the limits go on its type
            typed = [s for s in target.get("anyOf", []) if s.get("type") not in (None, "null")]
            if "anyOf" in extra or not typed:
                target.pop("type", None) if "anyOf" in extra else None
                target.update(extra)
            else:
                typed[0].update(extra)
    for model in ("SearchRequest", "ContextRequest"):
        if model in models:
            _weights_positive(models[model])
    return schema


KEYED = {401: "no Bearer key, or one that is not valid here (unknown or revoked)",
         403: "a key whose scopes do not allow this on this index (the same whether the "
              "index exists or not)",
         429: "more requests at once than --max-concurrent-requests, or this principal past "
              "--rate-limit; see Retry-After"}


def with_keys(schema: dict, needs_key) -> dict:
    """`schema` for a server with `--keys`: a Bearer security scheme, and on each operation
    whose path `needs_key(path)`, that scheme and the 401, 403 and 429 it may answer."""
    schema.setdefault("components", {}).setdefault("securitySchemes", {})["bearer"] = {
        "type": "http", "scheme": "bearer",
        "description": "a key made by `python -m service keys add` (docs/API.md)"}
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    for path, operations in schema.get("paths", {}).items():
        if not needs_key(path):
            continue
        for operation in operations.values():
            operation["security"] = [{"bearer": []}]
            responses = operation.setdefault("responses", {})
            for status, why in KEYED.items():
                responses[str(status)] = {"description": why, "content": error}
    return schema
