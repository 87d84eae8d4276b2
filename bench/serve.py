"""The retrieval service under concurrent load: 1, 8 and 32 clients on loopback, a fixed time
each, for search and for /v1/embeddings (one query per request): requests/s, p50, p99, errors;
beside the same calls in this process (the upper bound) and the service with batching off.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.serve --index indexes/bbc-news --seconds 10

The clients are threads of this process (httpx, one connection each), on the same CPUs as the
server: on a 2-core machine they take CPU from it, so read the figures side by side, not as the
service's ceiling.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import tempfile
from pathlib import Path

from bench.kit.benchkit import REPO, write_results
from bench.kit.serving import Server, http_calls, load, queries


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
