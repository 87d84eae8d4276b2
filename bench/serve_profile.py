"""Where one /v1/embeddings request's CPU goes under load: the service (batching off, then on)
answers N concurrent clients while `perf` samples every thread of the server process (native
code included: the model run is ONNX Runtime's or OpenVINO's threads) and `py-spy` samples the
thread holding the GIL (the Python part: HTTP, asyncio, FastAPI, pydantic, JSON, tokenizer
wrapper). Prints the shares and writes bench/results/<name>.md.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.serve_profile --index indexes/bbc-news

Needs `perf` (Linux, perf_event_paranoid <= 2 or root) and `py-spy` (requirements-dev.txt).
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.kit.benchkit import REPO, write_results
from bench.kit.serving import Server, http_calls, load, queries

# perf's shared objects -> what they do (first match wins; anything else: "other native")
DSO_KINDS = [("model run (ONNX Runtime / OpenVINO)", ("onnxruntime", "openvino", "libtbb",
                                                      "libgomp", "libiomp", "dnnl")),
             ("tokenizer (Rust)", ("tokenizers",)),
             ("pydantic-core (validation, JSON)", ("pydantic_core",)),
             ("Python interpreter", ("python", "libpython")),
             ("kernel (sockets, futex, scheduling)", ("kernel", "[k]", "vmlinux")),
             ("C library", ("libc", "libm.so", "ld-linux"))]
# py-spy frames (leaf first) -> the Python part's pieces
FRAME_KINDS = [("tokenizer wrapper (transformers)", ("transformers/", "tokenizers")),
               ("model run call", ("onnxruntime", "openvino")),
               ("JSON / response", ("fastapi/encoders", "json/", "serialize_response",
                                    "JSONResponse", "render")),
               ("pydantic validation", ("pydantic", "_compat", "request_body_to_args",
                                        "solve_dependencies")),
               ("HTTP (uvicorn, h11)", ("h11", "httptools", "uvicorn/")),
               ("thread hop (anyio, futures, queue)", ("anyio", "concurrent/futures",
                                                       "threading.py", "queue.py")),
               ("asyncio loop", ("asyncio", "selectors")),
               ("FastAPI / Starlette", ("fastapi", "starlette")),
               ("service, encoder, batching", ("service/", "encoder/", "numpy", "indexer/"))]


def classify(labels: list[str], kinds) -> str:
    for label in labels:
        for kind, keys in kinds:
            if any(k in label for k in keys):
                return kind
    return "other"


def perf_shares(data: Path) -> dict[str, float]:
    out = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--sort", "dso",
                          "--percent-limit", "0"], capture_output=True, text=True).stdout
    shares: collections.Counter = collections.Counter()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith("%") and not line.startswith("#"):
            shares[classify([parts[-1]], DSO_KINDS)] += float(parts[0].rstrip("%"))
    return dict(shares)


def spy_shares(raw: Path) -> dict[str, float]:
    counts: collections.Counter = collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        counts[classify(list(reversed(stack.split(";"))), FRAME_KINDS)] += int(n)
    total = sum(counts.values()) or 1
    return {k: 100 * v / total for k, v in counts.items()}


def profile(args, batching: bool, texts: list[str], folder: Path) -> dict:
    log = folder / "server.log"
    server = Server(args.index, batching, log, 1)
    try:
        server.wait()
        calls, pool = http_calls(server.url, args.index.name, args.model, args.clients, 10,
                                 "dense")
        for q in texts[:5]:
            calls["embeddings"](0, q)
        tag = "on" if batching else "off"
        perf_data, spy_raw = folder / f"perf-{tag}.data", folder / f"spy-{tag}.txt"
        seconds = str(max(1, int(args.seconds) - 1))
        perf = subprocess.Popen(["perf", "record", "-F", "499", "-p", str(server.process.pid),
                                 "-o", str(perf_data), "--", "sleep", seconds],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        spy = subprocess.Popen([args.py_spy, "record", "-p", str(server.process.pid), "-f",
                                "raw", "-r", "200", "--gil", "--nonblocking", "-d", seconds,
                                "-o", str(spy_raw)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        client_cpu = time.process_time()
        row = load(calls["embeddings"], texts, args.clients, args.seconds, server.cpu)
        row["client_cpu_ms_per_request"] = 1000 * (time.process_time() - client_cpu) / max(
            row["requests"], 1)
        perf.wait()
        spy.wait()
        for client in pool:
            client.close()
    finally:
        server.close()
    return {"batching": tag, **row, "native": perf_shares(perf_data),
            "python": spy_shares(spy_raw) if spy_raw.exists() else {}}


def encode_costs(index: Path, texts: list[str], seconds: float) -> list[dict]:
    """In this process, the index's encoder alone: texts/s and CPU ms per text for one text
    per call from 32 threads (what batching off runs) and 32 texts per call (batching's
    best case), padded to the longest or sorted in 8s; and for 32 copies of one text (no
    padding at all)."""
    from indexer import SemanticIndex

    enc = SemanticIndex.open(index).encoder
    same = [texts[3]] * len(texts)
    for text in texts[:20]:
        enc.encode([text])
    out = []
    for label, pool, threads, per_call, batch_size in (
            ("SciFact queries, 1 per call, 32 threads", texts, 32, 1, 32),
            ("SciFact queries, 32 per call, padded to the longest", texts, 1, 32, 32),
            ("SciFact queries, 32 per call, sorted in 8s", texts, 1, 32, 8),
            ("one query 32 times, 1 per call, 32 threads", same, 32, 1, 32),
            ("one query 32 times, 32 per call (no padding)", same, 1, 32, 32)):
        out.append({"calls": label, **encode_load(enc, pool, threads, per_call, batch_size,
                                                  seconds)})
        print(out[-1], flush=True)
    return out


def encode_load(enc, pool: list[str], threads: int, per_call: int, batch_size: int,
                seconds: float) -> dict:
    """`threads` threads encode `per_call` texts a call for `seconds`: texts/s, CPU per text."""
    import threading

    stop, done = time.perf_counter() + seconds, [0] * threads

    def work(t: int) -> None:
        i = t * 37
        while time.perf_counter() < stop:
            start = i % (len(pool) - per_call)
            enc.encode(pool[start:start + per_call], batch_size=batch_size)
            done[t] += per_call
            i += per_call

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    wall, cpu = time.perf_counter(), time.process_time()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall, cpu, n = time.perf_counter() - wall, time.process_time() - cpu, sum(done)
    return {"texts_per_s": n / wall, "cpu_ms_per_text": 1000 * cpu / n,
            "load_average": os.getloadavg()[0]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--index", type=Path, default=REPO / "indexes" / "bbc-news")
    p.add_argument("--model", default=None, help="the embeddings model (default: the index's)")
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--py-spy", default=shutil.which("py-spy") or
                   str(Path(sys.executable).parent / "py-spy"))
    p.add_argument("--name", default="serve_profile")
    args = p.parse_args()
    import json

    manifest = json.loads((args.index / "manifest.json").read_text())
    args.model = args.model or manifest["encoder"]["name"]
    texts = queries(500)
    with tempfile.TemporaryDirectory(prefix="serve-profile-") as tmp:
        rows = [profile(args, batching, texts, Path(tmp)) for batching in (False, True)]
    for row in rows:
        print(row, flush=True)
    costs = encode_costs(args.index, texts, args.seconds / 2)
    table = render(rows, args) + render_costs(costs)
    print(table)
    write_results(args.name, {"rows": rows, "encode_costs": costs, "clients": args.clients,
                              "seconds": args.seconds, "index": args.index.name,
                              "model": args.model}, table)


def render_costs(costs: list[dict]) -> str:
    lines = ["", "## The encoder alone, in this process: is a batched text cheaper?", "",
             "| calls | texts/s | CPU ms per text | load average |", "|---|---:|---:|---:|"]
    lines += [f"| {c['calls']} | {c['texts_per_s']:.0f} | {c['cpu_ms_per_text']:.2f} | "
              f"{c['load_average']:.1f} |" for c in costs]
    return "\n".join(lines) + "\n"


def render(rows: list[dict], args) -> str:
    lines = [f"# Where a /v1/embeddings request's CPU goes: {args.clients} clients, "
             f"{args.index.name}'s model ({args.model}), one query per request, "
             f"{args.seconds:g} s each", "",
             "| batching | requests/s | errors | server CPU ms / request | client CPU ms / "
             "request | load average |", "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['batching']} | {r['rps']:.1f} | {r['errors']} | "
                     f"{r['cpu_ms_per_request']:.1f} | {r['client_cpu_ms_per_request']:.1f} | "
                     f"{r['load_average']:.1f} |")
    for key, title in (("native", "Server CPU by code (perf, every thread, % of samples)"),
                       ("python", "The Python part by frame (py-spy, the GIL holder, %)")):
        kinds = sorted({k for r in rows for k in r[key]},
                       key=lambda k: -max(r[key].get(k, 0) for r in rows))
        lines += ["", f"## {title}", "", "| | " + " | ".join(f"batching {r['batching']}"
                                                          for r in rows) + " |",
                  "|---|" + "---:|" * len(rows)]
        for kind in kinds:
            lines.append(f"| {kind} | " + " | ".join(f"{r[key].get(kind, 0):.1f}" for r in rows)
                         + " |")
    lines += ["", "Clients are threads of the benchmark process on the same CPUs as the server. "
              "perf samples on-CPU time of every server thread by shared object; py-spy "
              f"samples which Python code holds the GIL. Load average: 1-minute, at the end of "
              f"a row ({os.cpu_count()} CPUs)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
