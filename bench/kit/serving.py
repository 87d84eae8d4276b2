"""The service under load, shared by serve, serve_memory, serve_one_client and serve_profile:
`python -m service` on a free port (`Server`), client threads calling it for a fixed time
(`load`), the HTTP calls they make (`http_calls`), and the queries they send."""

from __future__ import annotations

import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bench.kit.benchkit import REPO, data_dir

FALLBACK = ["rising oil prices", "who won the cup final", "new phone with a faster chip",
            "interest rates and inflation", "film awards ceremony", "election campaign"]


def queries(n: int) -> list[str]:
    try:
        path = data_dir() / "scifact" / "queries.jsonl"
        rows = [json.loads(line)["text"] for line in path.open(encoding="utf-8")]
    except (SystemExit, OSError):
        rows = FALLBACK
    return (rows * (n // len(rows) + 1))[:n]


def load(call: Callable[[int, str], bool], texts: list[str], clients: int, seconds: float,
         cpu: Callable[[], float] = time.process_time) -> dict:
    """`clients` threads call `call(client, text)` (True: a good answer, else what went wrong)
    until `seconds` pass; `cpu()`: CPU seconds of whoever answers (the server process, or this
    one in-process). `error_kinds` counts each kind of failure."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    kinds: collections.Counter = collections.Counter()
    gate = threading.Barrier(clients + 1)
    stop = [0.0]

    def worker(c: int) -> None:
        gate.wait()
        i = c
        while time.perf_counter() < stop[0]:
            started = time.perf_counter()
            try:
                ok = call(c, texts[i % len(texts)])
            except Exception as exc:  # noqa: BLE001 - counted, the load goes on
                ok = f"{type(exc).__name__}: {str(exc)[:80]}"
            latencies[c].append(time.perf_counter() - started)
            if ok is not True:
                errors[c] += 1
                kinds[str(ok)] += 1
            i += clients

    threads = [threading.Thread(target=worker, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    stop[0] = time.perf_counter() + seconds
    gate.wait()
    began, cpu_before = time.perf_counter(), cpu()
    for t in threads:
        t.join()
    elapsed, cpu_used = time.perf_counter() - began, cpu() - cpu_before
    every = sorted(x for lat in latencies for x in lat)
    return {"clients": clients, "requests": len(every), "rps": len(every) / elapsed,
            "p50_ms": 1000 * statistics.median(every) if every else float("nan"),
            "p99_ms": 1000 * every[min(len(every) - 1, int(0.99 * len(every)))] if every
            else float("nan"), "errors": sum(errors), "error_kinds": dict(kinds),
            "cpu_ms_per_request": 1000 * cpu_used / max(len(every), 1),
            "load_average": os.getloadavg()[0]}


class Server:
    """`python -m service` over a root holding `index` (a link), on a free port."""

    def __init__(self, index: Path, batching: bool, log: Path, faiss_threads: int,
                 env: dict | None = None, checkout: Path = REPO) -> None:
        import socket

        self.root = Path(tempfile.mkdtemp(prefix="serve-bench-"))
        (self.root / index.name).symlink_to(index.resolve())
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        argv = [sys.executable, "-m", "service", "--port", str(self.port), "--index-root",
                str(self.root), "--log-level", "warning", "--faiss-threads",
                str(faiss_threads)] + (["--batching"] if batching else [])
        self.out = log.open("ab")
        checkout = Path(checkout).resolve()
        self.process = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT,
                                        cwd=checkout, env={**os.environ, "HF_HUB_OFFLINE": "1",
                                                           "PYTHONPATH": str(checkout),
                                                           **(env or {})})
        self.url = f"http://127.0.0.1:{self.port}"

    def wait(self) -> None:
        import httpx

        for _ in range(600):
            if self.process.poll() is not None:
                raise SystemExit("the server exited; see its log")
            try:
                if httpx.get(self.url + "/health").status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise SystemExit("the server did not start in 2 minutes")

    def rss(self) -> int:
        import psutil

        return psutil.Process(self.process.pid).memory_info().rss

    def cpu(self) -> float:
        import psutil

        times = psutil.Process(self.process.pid).cpu_times()
        return times.user + times.system

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.out.close()


def http_calls(url: str, name: str, model: str, clients: int, k: int, mode: str):
    import httpx

    pool = [httpx.Client(base_url=url, timeout=60) for _ in range(clients)]

    def answered(response) -> bool | str:
        return True if response.status_code == 200 else \
            f"HTTP {response.status_code}: {response.text[:120]}"

    def search(c: int, q: str) -> bool | str:
        return answered(pool[c].post(f"/v1/indexes/{name}/search",
                                     json={"query": q, "k": k, "mode": mode}))

    def embed(c: int, q: str) -> bool | str:
        return answered(pool[c].post("/v1/embeddings", json={"model": model, "input": [q]}))

    return {"search": search, "embeddings": embed}, pool
