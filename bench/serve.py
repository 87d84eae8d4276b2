"""The retrieval service under concurrent load: 1, 8 and 32 clients on loopback, a fixed time
each, for search and for /v1/embeddings (one query per request): requests/s, p50, p99, errors;
beside the same calls in this process (the upper bound) and the service with batching off.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/serve.py --index indexes/bbc-news --seconds 10

The clients are threads of this process (httpx, one connection each), on the same CPUs as the
server: on a 2-core machine they take CPU from it, so read the figures side by side, not as the
service's ceiling.
"""

from __future__ import annotations

import argparse
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

from benchkit import REPO, data_dir, write_results

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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--index", type=Path, default=REPO / "indexes" / "bbc-news")
    p.add_argument("--clients", default="1,8,32")
    p.add_argument("--seconds", type=float, default=10.0, help="per client count and setup")
    p.add_argument("--mode", default="dense")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--faiss-threads", type=int, default=1, help="the server's --faiss-threads (a "
                   "batch of more than 8 queries only: a request here is one query, which "
                   "searches on one thread in-process and in the server alike)")
    p.add_argument("--rounds", type=int, default=3, help="every row this many times (medians)")
    p.add_argument("--name", default="serve")
    p.add_argument("--baseline", type=Path, help="another checkout (e.g. main's) whose "
                   "service runs beside this one's, batching on and off, in the same rounds")
    args = p.parse_args()
    from indexer import SemanticIndex

    counts = [int(c) for c in args.clients.split(",")]
    texts = queries(500)
    index = SemanticIndex.open(args.index)
    model = index.manifest["encoder"]["name"]
    rows = []
    local = {"search": lambda c, q: bool(index.search(q, args.k, mode=args.mode) is not None),
             "embeddings": lambda c, q: index.encoder.encode([q]).shape[0] == 1}
    for q in texts[:5]:
        local["search"](0, q)
    log = Path(tempfile.gettempdir()) / f"{args.name}-server.log"
    # both servers up at once, their rows interleaved (on, off, on, off, ...) and every round
    # in-process again: on a shared machine whose load drifts, each pair ran under one load
    servers = {f"service, batching {'on' if on else 'off'}": Server(args.index, on, log,
                                                                    args.faiss_threads)
               for on in (True, False)}
    if args.baseline:
        servers |= {f"baseline, batching {'on' if on else 'off'}": Server(
            args.index, on, log, args.faiss_threads, checkout=args.baseline)
            for on in (True, False)}
    try:
        for server in servers.values():
            server.wait()
        for round_ in range(args.rounds):
            for endpoint, call in local.items():
                for n in counts:
                    rows.append({"setup": "in-process", "endpoint": endpoint, "round": round_,
                                 **load(call, texts, n, args.seconds)})
                    print(rows[-1], flush=True)
            for n in counts:
                rows += server_rows(servers, texts, n, model, args, round_)
    finally:
        for server in servers.values():
            server.close()
    table = render(rows, args, model)
    print(table)
    write_results(args.name, {"rows": rows, "seconds": args.seconds, "mode": args.mode,
                              "rounds": args.rounds,
                              "faiss_threads": args.faiss_threads,
                              "k": args.k, "index": args.index.name}, table)


def server_rows(servers: dict, texts: list[str], n: int, model: str, args, round_: int) -> list:
    """One round's rows of every server at `n` clients, endpoint by endpoint, one after
    another."""
    rows = []
    pools = {setup: http_calls(s.url, args.index.name, model, n, args.k, args.mode)
             for setup, s in servers.items()}
    for calls, _ in pools.values():
        for q in texts[:5]:
            calls["search"](0, q), calls["embeddings"](0, q)
    for endpoint in ("search", "embeddings"):
        for setup, (calls, _) in pools.items():
            rows.append({"setup": setup, "endpoint": endpoint, "round": round_,
                         **load(calls[endpoint], texts, n, args.seconds, servers[setup].cpu)})
            print(rows[-1], flush=True)
    for _, pool in pools.values():
        for client in pool:
            client.close()
    return rows


def render(rows: list[dict], args, model: str) -> str:
    lines = [f"# The service under load: {args.index.name} ({model}), {args.mode} search k="
             f"{args.k} and /v1/embeddings, one query per request, {args.seconds:g} s each, "
             f"FAISS on {args.faiss_threads} thread(s)", "",
             f"{args.rounds} round(s) of every row: medians", "",
             "| setup | endpoint | clients | requests/s | p50 ms | p99 ms | errors | CPU ms per "
             "request | load average (max) | requests/s per round |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    med = statistics.median
    groups: dict[tuple, list[dict]] = collections.defaultdict(list)
    for r in rows:
        groups[(r["endpoint"], r["clients"], r["setup"])].append(r)
    for (endpoint, clients, setup), rs in sorted(groups.items()):
        lines.append(f"| {setup} | {endpoint} | {clients} | {med(r['rps'] for r in rs):.1f} | "
                     f"{med(r['p50_ms'] for r in rs):.2f} | {med(r['p99_ms'] for r in rs):.2f} | "
                     f"{sum(r['errors'] for r in rs)} | "
                     f"{med(r['cpu_ms_per_request'] for r in rs):.1f} | "
                     f"{max(r['load_average'] for r in rs):.1f} | "
                     f"{', '.join(str(round(r['rps'])) for r in rs)} |")
    lines += ["", "| endpoint | clients | requests/s, batching on / off (median of rounds) | "
              "per round | p50, service (batching off) / in-process | per round | "
              "p50, service (batching on) / in-process | per round |",
              "|---|---:|---:|---|---:|---|---:|---|"]

    def ratios(endpoint, clients, a, b, key):
        return [x[key] / y[key] for x, y in zip(groups[(endpoint, clients, a)],
                                                groups[(endpoint, clients, b)], strict=True)]

    def cells(values):
        return f"{med(values):.2f} | {', '.join(f'{g:.2f}' for g in values)}"

    for endpoint in ("embeddings", "search"):
        for clients in sorted({r["clients"] for r in rows}):
            gain = ratios(endpoint, clients, "service, batching on", "service, batching off",
                          "rps")
            off = ratios(endpoint, clients, "service, batching off", "in-process", "p50_ms")
            on = ratios(endpoint, clients, "service, batching on", "in-process", "p50_ms")
            lines.append(f"| {endpoint} | {clients} | {cells(gain)} | {cells(off)} | "
                         f"{cells(on)} |")
    if any(r["setup"].startswith("baseline") for r in rows):
        lines += ["", f"Against the baseline checkout ({args.baseline}), same rounds: "
                  "requests/s of this service / the baseline's", "",
                  "| endpoint | clients | batching on | per round | batching off | per round |",
                  "|---|---:|---:|---|---:|---|"]
        for endpoint in ("embeddings", "search"):
            for clients in sorted({r["clients"] for r in rows}):
                on = ratios(endpoint, clients, "service, batching on", "baseline, batching on",
                            "rps")
                off = ratios(endpoint, clients, "service, batching off",
                             "baseline, batching off", "rps")
                lines.append(f"| {endpoint} | {clients} | {cells(on)} | {cells(off)} |")
    failures = [f"- {r['setup']}, {r['endpoint']}, {r['clients']} clients: {n} × `{kind}`"
                for r in rows for kind, n in r.get("error_kinds", {}).items()]
    if failures:
        lines += ["", "Errors:", *failures]
    lines += ["", "Clients are threads of the benchmark process on the same CPUs as the server "
              "(and, in-process, as the index): compare rows side by side. CPU ms per request: "
              "the server process's CPU time over the window (in-process: this whole process's, "
              "clients included) divided by the requests answered. Load average: the machine's "
              "1-minute load at the end of the row (2 cores: above 2, others were running)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
