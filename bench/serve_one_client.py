"""One client's latency through the service against the same call in-process, in short turns:
a block of queries (25) in-process, the same block through every server (batching on and off,
and a baseline checkout's where given), in an order that rotates, then the next block. On a
machine whose speed drifts (a shared host: a loop of 3 million Python additions, timed five
times 2 s apart, took 0.51 to 1.02 s) every setup's samples are then taken under nearly the same
load, where `bench/serve.py`'s 5 s stretches give each setup its own. Turns of one request each
were tried first and measure something else: the runtime's threads of the setup just called
still spin (ONNX Runtime and OpenMP wait busily for more work for a while) and take the 2 cores
from the next setup.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.serve_one_client --index indexes/bbc-news

Reports each setup's p50 and its ratio to in-process's p50, per round and the median over rounds
(the #40 goal: search ≤ 1.3× with batching off and on). The client is httpx, as in
`bench/serve.py`; GET /health is timed too, as the floor HTTP alone costs.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import tempfile
import time
from pathlib import Path

from bench.kit.benchkit import REPO, write_results
from bench.kit.serving import Server, http_calls, queries

ENDPOINTS = ("search", "embeddings")


def timed(call, *args) -> float:
    started = time.perf_counter()
    ok = call(*args)
    if ok is not True:
        raise SystemExit(f"a call failed: {ok}")
    return time.perf_counter() - started


def one_round(local: dict, remote: dict, health: dict, texts: list[str], block: int) -> dict:
    """{(setup, endpoint): p50 ms} over `texts`: `block` queries through one setup and endpoint,
    then the same through the next, in an order that rotates block by block."""
    setups = ["in-process", *remote]
    samples: dict[tuple, list[float]] = {(s, e): [] for s in setups for e in ENDPOINTS}
    samples |= {(s, "health"): [] for s in remote}
    for b, start in enumerate(range(0, len(texts), block)):
        some = texts[start:start + block]
        order = setups[b % len(setups):] + setups[:b % len(setups)]
        for endpoint in ENDPOINTS:
            for setup in order:
                call = local[endpoint] if setup == "in-process" else remote[setup][endpoint]
                samples[(setup, endpoint)] += [timed(call, 0, q) for q in some]
        for setup in remote:
            samples[(setup, "health")] += [timed(health[setup]) for _ in some]
    return {key: 1000 * statistics.median(v) for key, v in samples.items()}


def render(rounds: list[dict], args, model: str) -> str:
    med = statistics.median
    setups = sorted({s for r in rounds for s, _ in r} - {"in-process"})
    lines = [f"# One client, in turns: {args.index.name} ({model}), {args.mode} "
             f"search k={args.k} and /v1/embeddings, one query per request", "",
             f"{len(rounds)} round(s) of {args.queries} queries, in turns of {args.block} "
             "queries per setup. p50 ms (median over rounds) and p50 / in-process's p50 (median of "
             "the rounds' ratios; each round's in the last column)", "",
             "| setup | endpoint | p50 ms | / in-process | per round |", "|---|---|---:|---:|---|"]
    for endpoint in ENDPOINTS:
        base = [r[("in-process", endpoint)] for r in rounds]
        lines.append(f"| in-process | {endpoint} | {med(base):.2f} | 1 | |")
        for setup in setups:
            p50 = [r[(setup, endpoint)] for r in rounds]
            ratio = [a / b for a, b in zip(p50, base, strict=True)]
            lines.append(f"| {setup} | {endpoint} | {med(p50):.2f} | {med(ratio):.2f} | "
                         f"{', '.join(f'{x:.2f}' for x in ratio)} |")
    for setup in setups:
        lines.append(f"| {setup} | GET /health | "
                     f"{med(r[(setup, 'health')] for r in rounds):.2f} | | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--index", type=Path, default=REPO / "indexes" / "bbc-news")
    p.add_argument("--queries", type=int, default=300, help="per round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--block", type=int, default=25, help="queries in one setup's turn")
    p.add_argument("--mode", default="dense")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--faiss-threads", type=int, default=1)
    p.add_argument("--baseline", type=Path, help="another checkout whose service (batching "
                   "off) is timed in the same turns")
    p.add_argument("--name", default="serve_one_client")
    args = p.parse_args()
    import httpx

    from indexer import SemanticIndex

    index = SemanticIndex.open(args.index)
    model = index.manifest["encoder"]["name"]
    local = {"search": lambda c, q: index.search(q, args.k, mode=args.mode) is not None,
             "embeddings": lambda c, q: index.encoder.encode([q]).shape[0] == 1}
    log = Path(tempfile.gettempdir()) / f"{args.name}-server.log"
    servers = {f"service, batching {'on' if on else 'off'}": Server(
        args.index, on, log, args.faiss_threads) for on in (True, False)}
    if args.baseline:
        servers["baseline, batching off"] = Server(args.index, False, log, args.faiss_threads,
                                                   checkout=args.baseline)
    texts = queries(args.queries)
    clients: list = []
    try:
        for server in servers.values():
            server.wait()
        remote, health = {}, {}
        for setup, server in servers.items():
            remote[setup], pool = http_calls(server.url, args.index.name, model, 1, args.k,
                                             args.mode)
            prober = httpx.Client(base_url=server.url, timeout=60)  # a connection of its own
            health[setup] = functools.partial(lambda c: c.get("/health").status_code == 200,
                                              prober)
            clients += [*pool, prober]
        one_round(local, remote, health, texts[:10], args.block)  # warm-up: open, load
        rounds = []
        for i in range(args.rounds):
            rounds.append(one_round(local, remote, health, texts, args.block))
            print(f"round {i + 1}: " + ", ".join(f"{s}/{e} {v:.2f}"
                                                 for (s, e), v in rounds[-1].items()), flush=True)
    finally:
        for client in clients:
            client.close()
        for server in servers.values():
            server.close()
    table = render(rounds, args, model)
    print(table)
    write_results(args.name, {"rounds": [{f"{s} | {e}": v for (s, e), v in r.items()}
                                         for r in rounds], "queries": args.queries,
                              "mode": args.mode, "k": args.k, "index": args.index.name,
                              "faiss_threads": args.faiss_threads}, table)


if __name__ == "__main__":
    main()
