"""The service's memory under load: each setup's server is warmed up (its encoder loaded, 200
requests from one client), then takes 3 rounds of 32 clients (half /v1/embeddings, half search,
one SciFact query per request); its resident memory (RSS) is read after the warm-up and after
each round. The issue's bar: RSS after the 3 rounds <= 1.3x RSS after the warm-up.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.serve_memory --index indexes/bbc-news

`--setups` picks among SETUPS (name: server flags and environment), to say where growth comes
from by switching one thing at a time.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench.kit.benchkit import REPO, write_results
from bench.kit.serving import Server, http_calls, load, queries

# name -> (batching, environment); the service sets none of these by itself unless said
SETUPS = {
    "batching": (True, {}),
    "no batching": (False, {}),
    # before shape buckets (encoder/shapes.py): every batch's own (rows, tokens) shape
    "batching, no shape buckets": (True, {"BERTSCOPE_OPENVINO_SHAPE_BUCKETS": "0"}),
    "no batching, no shape buckets": (False, {"BERTSCOPE_OPENVINO_SHAPE_BUCKETS": "0"}),
    "batching, MALLOC_ARENA_MAX=2": (True, {"MALLOC_ARENA_MAX": "2"}),
    # OpenVINO's cache of compiled primitives (5,000 entries unless told otherwise)
    "batching, OpenVINO cache 1000": (True, {"BERTSCOPE_OPENVINO_SHAPE_CACHE": "1000"}),
    "batching, OpenVINO cache 100": (True, {"BERTSCOPE_OPENVINO_SHAPE_CACHE": "100"}),
}


def measure(name: str, args, texts: list[str], model: str, log: Path) -> dict:
    batching, env = SETUPS[name]
    server = Server(args.index, batching, log, 1, env=env)
    try:
        server.wait()
        calls, pool = http_calls(server.url, args.index.name, model, args.clients, 10, "dense")
        for i in range(200):
            (calls["search"] if i % 2 else calls["embeddings"])(0, texts[i % len(texts)])
        time.sleep(1)
        row = {"setup": name, "env": env, "rss_warm": server.rss(), "rounds": []}

        def mixed(c: int, q: str):
            return (calls["search"] if c % 2 else calls["embeddings"])(c, q)

        for _ in range(args.rounds):
            result = load(mixed, texts, args.clients, args.seconds, server.cpu)
            time.sleep(1)
            row["rounds"].append({"rss": server.rss(), "rps": result["rps"],
                                  "cpu_ms": result["cpu_ms_per_request"],
                                  "errors": result["errors"],
                                  "load_average": result["load_average"]})
            print(name, row["rss_warm"], row["rounds"][-1], flush=True)
        for client in pool:
            client.close()
        row["ratio"] = row["rounds"][-1]["rss"] / row["rss_warm"]
        return row
    finally:
        server.close()


def render(rows: list[dict], args) -> str:
    mb = 2 ** 20
    lines = [f"# The service's memory: {args.rounds} rounds of {args.clients} clients, "
             f"{args.seconds:g} s each ({args.index.name})", "",
             "| setup | RSS after warm-up (MiB) | after each round (MiB) | after / warm-up | "
             "requests/s per round | server CPU ms per request, per round | errors | "
             "load average (max) |",
             "|---|---:|---|---:|---|---|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['setup']} | {r['rss_warm'] / mb:.0f} | "
            f"{', '.join(str(round(x['rss'] / mb)) for x in r['rounds'])} | "
            f"{r['ratio']:.2f} | {', '.join(str(round(x['rps'])) for x in r['rounds'])} | "
            f"{', '.join(str(round(x['cpu_ms'], 1)) for x in r['rounds'])} | "
            f"{sum(x['errors'] for x in r['rounds'])} | "
            f"{max(x['load_average'] for x in r['rounds']):.1f} |")
    lines += ["", "Each setup is its own server, one after another; the clients are threads of "
              "the benchmark process on the same CPUs."]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--index", type=Path, default=REPO / "indexes" / "bbc-news")
    p.add_argument("--setups", default="batching;no batching",
                   help=f"separated by ';', of: {'; '.join(SETUPS)}")
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--name", default="serve_memory")
    args = p.parse_args()
    from indexer import SemanticIndex

    model = SemanticIndex.open(args.index).manifest["encoder"]["name"]
    texts = queries(500)
    log = Path(tempfile.gettempdir()) / f"{args.name}-server.log"
    rows = [measure(name.strip(), args, texts, model, log) for name in args.setups.split(";")]
    table = render(rows, args)
    print(table)
    write_results(args.name, {"rows": rows, "clients": args.clients, "seconds": args.seconds,
                              "rounds": args.rounds, "index": args.index.name,
                              "load_average_before": os.getloadavg()[0]}, table)


if __name__ == "__main__":
    main()
