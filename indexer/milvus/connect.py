"""Reaching Milvus: a `MilvusClient` for an address, refused with one line when the server does
not answer within `connect_timeout()` seconds (10 unless BERTSCOPE_MILVUS_TIMEOUT_S says; no
hang), and the lock that serialises this process's writes to one collection (milvus-lite takes
concurrent readers but not concurrent writers).

Keepalive: pymilvus pings every 10 s even while no call is under way, but milvus-lite's gRPC
server keeps gRPC's default policy: no pings without calls, and at most one every 5 minutes
otherwise. A client left idle (a build encoding for minutes, an index nobody searched) collected
strikes until the server sent GOAWAY `too_many_pings`, printed gRPC error lines on the user's
terminal, and a reconnect could fail. On milvus-lite the client pings only during calls, and
no more often than the server allows (`lite_grpc_options`)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..errors import IndexerError, UnavailableError
from .address import MilvusAddress

CONNECT_TIMEOUT_S = 10.0  # default; BERTSCOPE_MILVUS_TIMEOUT_S sets another
KEEPALIVE_S = 300.0  # gRPC servers' default minimum between pings; BERTSCOPE_MILVUS_KEEPALIVE_S


def lite_grpc_options() -> dict:
    """The client's gRPC options for milvus-lite: silent while idle, and during a call a ping
    no more often than `BERTSCOPE_MILVUS_KEEPALIVE_S` (default 300; tests shorten it)."""
    seconds = _seconds("BERTSCOPE_MILVUS_KEEPALIVE_S", KEEPALIVE_S)
    return {"grpc.keepalive_permit_without_calls": 0,
            "grpc.keepalive_time_ms": max(1, int(seconds * 1000))}
_locks: dict[tuple[str, str], threading.RLock] = {}
_locks_lock = threading.Lock()


def connect_timeout() -> float:
    """Seconds to wait for a Milvus server: `BERTSCOPE_MILVUS_TIMEOUT_S`, else 10."""
    return _seconds("BERTSCOPE_MILVUS_TIMEOUT_S", CONNECT_TIMEOUT_S)


def _seconds(variable: str, default: float) -> float:
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise IndexerError(f"{variable}={text!r}: give seconds, a positive number")
    return value


def connect(address: MilvusAddress, *, timeout: float | None = None, create: bool = False):
    """A `pymilvus.MilvusClient` for `address`. For milvus-lite the `.db` file must exist unless
    `create` (a build). Raises `IndexerError`, one line, when Milvus does not answer within
    `timeout` seconds (default `connect_timeout()`)."""
    timeout = connect_timeout() if timeout is None else timeout
    try:
        from pymilvus import MilvusClient
        from pymilvus.exceptions import MilvusException
    except ImportError as exc:  # pragma: no cover - pinned in requirements.txt
        raise ImportError("the Milvus store needs pymilvus and milvus-lite: "
                          "pip install pymilvus milvus-lite") from exc
    if address.lite:
        path = Path(address.uri)
        if not create and not path.exists():
            raise FileNotFoundError(f"no Milvus index at {address}: {path} does not exist; build "
                                    f"one with `python -m indexer build --store milvus "
                                    f"--milvus-uri {path} --collection {address.collection} ...`")
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        _check_writable(path)
    try:
        return MilvusClient(uri=address.uri, timeout=timeout,
                            grpc_options=lite_grpc_options() if address.lite else {})
    except MilvusException as exc:
        reason = str(getattr(exc, "message", exc)).splitlines()[0][:200]
        if address.lite:
            raise IndexerError(f"milvus-lite cannot open {address.uri} ({reason}): another process "
                               "may hold it (milvus-lite serves one process per .db file; for "
                               "several, serve it with `milvus-lite server` or run a Milvus "
                               "server)") from None
        raise UnavailableError(f"cannot reach Milvus at {address.uri} (waited at most "
                               f"{timeout:g} s): {reason}; start the server, or check the "
                               "address") from None


def _check_writable(path: Path) -> None:
    """milvus-lite writes a LOCK file in its `.db` folder (beside a `.db` file) even to read:
    where it cannot, say so, not that another process holds it."""
    where = path if path.is_dir() else path.parent
    if where.exists() and not os.access(where, os.W_OK):
        raise IndexerError(f"milvus-lite cannot open {path}: {where} is read-only, and "
                           "milvus-lite writes its LOCK file there even to read; copy the .db "
                           "to a writable folder, or serve it with a Milvus server")


def write_lock(address: MilvusAddress) -> threading.RLock:
    """The lock this process holds while it writes to `address`'s collections."""
    key = (address.uri, address.collection)
    with _locks_lock:
        return _locks.setdefault(key, threading.RLock())
