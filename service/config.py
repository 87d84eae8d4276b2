"""`ServiceConfig`: what one server serves and the limits it keeps (each named in its errors)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

# bounds of the settings a server runs by (the CLI's flags say the same): a batch that waits
# forever (inf) would stop the batcher, a connection timeout of a nanosecond closes connections
# before their first byte arrives
MAX_WAIT_MS = 1000.0
MIN_TIMEOUT_S = 0.5


@dataclass(frozen=True)
class Limits:
    """Refused beyond these, with a JSON error naming the limit (413 for size, 422 otherwise)."""

    max_body_bytes: int = 8 * 1024 * 1024  # 413: any request body
    # 413: object members and array elements in one JSON body, counted before it is parsed
    # (1,000 documents of 20 metadata fields hold about 25,000)
    max_json_items: int = 50_000
    max_inputs: int = 256  # 413: texts in one /v1/embeddings call, queries in one search
    max_documents: int = 1000  # 413: documents (or ids) in one write
    max_k: int = 1000  # 422: hits asked for
    max_query_chars: int = 4096  # 422: one query (an embedding input: max_text_chars)
    max_text_chars: int = 100_000  # 422: one embedding input or document text
    max_context_tokens: int = 32_768  # 422: a context's token budget


@dataclass(frozen=True)
class ServiceConfig:
    index_root: Path = Path("indexes")
    api_key: str | None = None  # None: the document endpoints are off
    batching: bool = False  # dynamic batching of concurrent encodings (`--batching`): more
    # requests/s under many clients, a little more time for a lone request (docs/API.md,
    # bench/results/serve-default.md)
    max_batch_texts: int = 64
    max_wait_ms: float = 2.0
    faiss_threads: int = 1  # FAISS's OpenMP threads for a batch of > 8 queries (fewer: one)
    limits: Limits = Limits()
    # requests answered at once (health, readiness and metrics aside); past it a 429 with
    # Retry-After (None: no bound). Each holds at most one entry of an encoder's batch queue.
    max_concurrent_requests: int | None = 256
    idle_timeout_s: float = 5.0  # a connection that sends nothing (new or between requests)
    request_timeout_s: float = 30.0  # headers and body whole, from the request's first byte
    # principals, keys and scopes (`--keys`, service/access.py): None: reads open to anyone
    # who reaches the port, writes by `api_key`
    keys_file: Path | None = None
    audit_log: Path | None = None  # JSONL of writes and refusals (service/audit.py); None: off
    audit_max_bytes: int = 100 * 1024 * 1024  # then renamed .1 (five kept)
    rate_limit: float | None = None  # requests a second per principal (burst as many)

    def __post_init__(self) -> None:
        problem = settings_problem(self)
        if problem:
            raise ValueError(f"ServiceConfig: {problem}")


def settings_problem(config: ServiceConfig) -> str | None:
    """What in `config` no server can run by, named by its field, or None."""
    def finite(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) \
            and math.isfinite(value)

    if not (finite(config.max_wait_ms) and 0 <= config.max_wait_ms <= MAX_WAIT_MS):
        return (f"max_wait_ms must be a number of milliseconds from 0 to {MAX_WAIT_MS:g}, got "
                f"{config.max_wait_ms!r}")
    for name in ("idle_timeout_s", "request_timeout_s"):
        value = getattr(config, name)
        if not (finite(value) and value >= MIN_TIMEOUT_S):
            return (f"{name} must be a finite number of seconds >= {MIN_TIMEOUT_S:g} (shorter "
                    f"closes connections before their request arrives), got {value!r}")
    if config.keys_file is not None and config.api_key is not None:
        return ("keys_file and api_key (--keys and --api-key-file) exclude each other: with "
                "--keys, give writers a 'write' scope in the keys file")
    if config.rate_limit is not None and not (finite(config.rate_limit)
                                              and config.rate_limit > 0):
        return f"rate_limit must be a finite number of requests a second > 0, got " \
               f"{config.rate_limit!r}"
    if config.rate_limit is not None and config.keys_file is None:
        return "rate_limit (--rate-limit) is per principal: it needs keys_file (--keys)"
    if not (isinstance(config.audit_max_bytes, int) and config.audit_max_bytes >= 1024):
        return f"audit_max_bytes must be an integer >= 1024, got {config.audit_max_bytes!r}"
    if not (isinstance(config.max_batch_texts, int) and config.max_batch_texts >= 1):
        return f"max_batch_texts must be an integer >= 1, got {config.max_batch_texts!r}"
    return None
