"""Do response times tell a caller without access that a hidden document exists (issue 50, "no
side channels")? A folder index of SciFact abstracts (vectors by `minilm`, given to the build)
in which some documents carry `access: ["hr"]`, and its twin built without them, served by
`python -m service --keys` on localhost. A principal outside `hr` sends, per mode (lexical,
dense, hybrid) and to `/context`, queries of five kinds, all of the same token count:

  (a) a hidden document's own words, to the index that holds it;
  (b) a visible document's words, to the same index;
  (c) the (a) queries to the twin, where the hidden documents were never added;
  (d) the words of a document never indexed anywhere, to the index of (a);
  (e) the (d) queries to the twin.

(a) against (c) is the question as asked (the same words; the documents there or not); (a)
against (d) is what an attacker can run, one index and texts guessed right or wrong; (d)
against (e) is the same two indexes with no hidden document matching, so a shift of (a) over (c)
that (d) over (e) shows too is the index's size, not the hidden match (the shifts are compared
round by round). Every cell is called once per round, in a new random order each round, so the
host's drift falls on all alike; the first rounds warm up and are dropped. Timed: the client's
wall time of each request, and the `timings.search_ms` each answer carries (the server's own
clock, handed to the caller). The same kinds run in-process for a principal-less reader
(`readers=[]`, what a retriever in the caller's process passes), queries encoded beforehand:
the search's time alone, with no HTTP or encoding noise. Every answer to an outsider is checked
to hold no hidden document. Results: bench/results/access_timing.md.

    python -m bench.access_timing [--docs 2000] [--hidden 100] [--reps 300] [--preset hnsw]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.kit.benchkit import REPO, data_dir, write_results
from common.argtypes import integer

from .report import ENDPOINTS, KINDS, TWIN, analyse, table

KEY = "bench-access-timing-outsider-key-0123456789"
HIDDEN, K = frozenset(["hr"]), 10
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95, 0.99)  # of each cell's times, kept in the JSON


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.access_timing",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--docs", type=integer(100, 5000), default=2000,
                   help="documents in the index (SciFact has 5,183 abstracts)")
    p.add_argument("--hidden", type=integer(10, 500), default=100,
                   help="of them restricted to 'hr'; as many visible and never-indexed ones "
                        "give the (b) and (d) queries")
    p.add_argument("--reps", type=integer(20), default=300, help="timed calls per cell")
    p.add_argument("--warm", type=integer(0), default=20, help="rounds dropped first")
    p.add_argument("--tokens", type=integer(4, 64), default=20,
                   help="tokens (minilm's) in every query")
    p.add_argument("--preset", default="hnsw", choices=("flat", "hnsw"))
    p.add_argument("--backend", default="onnx", help="minilm's encoding backend")
    p.add_argument("--seed", type=integer(0), default=50)
    p.add_argument("--name", default="access_timing")
    return p


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = parser()
    args = p.parse_args(argv)
    if 3 * args.hidden > args.docs:
        p.error(f"--hidden {args.hidden} needs --docs of at least {3 * args.hidden} (the "
                f"hidden and visible query documents, and the rest)")
    return args


def window(text: str, tokens: int, count) -> str | None:
    """The first run of whole words in `text` that is exactly `tokens` tokens long."""
    words = text.split()
    for start in range(len(words)):
        for end in range(start + 1, len(words) + 1):
            n = count(" ".join(words[start:end]))
            if n >= tokens:
                if n == tokens:
                    return " ".join(words[start:end])
                break
    return None


def corpus(args, count) -> tuple[list[dict], dict[str, list[str]], dict[str, str]]:
    """(documents, queries per kind, the hidden documents' ids by their query) from SciFact
    shuffled: the first `hidden` abstracts with a window restricted, the next as many give
    (b), the next as many, never indexed, give (d), the rest fill the index."""
    path = data_dir() / "scifact" / "corpus.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    random.Random(args.seed).shuffle(rows)
    picked: dict[str, list[tuple[dict, str]]] = {"a": [], "b": [], "d": []}
    rest = []
    for row in rows:
        kind = next((k for k in picked if len(picked[k]) < args.hidden), None)
        found = window(row["text"], args.tokens, count) if kind else None
        if found:
            picked[kind].append((row, found))
        elif len(rest) < args.docs - 2 * args.hidden:
            rest.append(row)
    if any(len(v) < args.hidden for v in picked.values()):
        raise SystemExit(f"SciFact has too few abstracts with a {args.tokens}-token window")

    def doc(row: dict, hidden: bool) -> dict:
        return {"id": row["_id"], "title": row["title"], "text": row["text"],
                "metadata": {"access": sorted(HIDDEN)} if hidden else {}}

    docs = [doc(r, True) for r, _ in picked["a"]] + [doc(r, False) for r, _ in picked["b"]]
    docs += [doc(r, False) for r in rest]
    queries = {k: [q for _, q in v] for k, v in picked.items()}
    queries["c"], queries["e"] = queries["a"], queries["d"]
    return docs, queries, {q: r["_id"] for r, q in picked["a"]}


def vectors(docs: list[dict], encoder) -> np.ndarray:
    """The documents' passage vectors, cached under $BERTSCOPE_HOME/bench/access-timing by the
    model, its backend and the documents' ids."""
    from common.home import bertscope_home

    work = bertscope_home("bench", "access-timing")
    ids = hashlib.sha256("\n".join(d["id"] for d in docs).encode()).hexdigest()[:16]
    name = f"{encoder.fingerprint[:12]}-{encoder.backend}-{ids}.npy"
    if (work / name).exists():
        return np.load(work / name)
    print(f"encoding {len(docs)} abstracts once (cached in $BERTSCOPE_HOME)", flush=True)
    out = encoder.encode([d["text"] for d in docs], prompt="passage", batch_size=32)
    np.save(work / name, out)
    return out


def serve(root: Path, keys: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """`python -m service --keys` over `root` on a free port, once it answers /ready."""
    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [sys.executable, "-m", "service", "--port", str(port), "--index-root", str(root),
            "--keys", str(keys), "--audit-log", "off", "--log-level", "warning"]
    proc = subprocess.Popen(argv, stdout=log.open("ab"), stderr=subprocess.STDOUT, cwd=REPO,
                            env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)})
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if proc.poll() is not None:
            raise SystemExit("the service exited:\n" + log.read_text(errors="replace")[-2000:])
        try:
            if httpx.get(url + "/ready", timeout=60).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    raise SystemExit("the service was not ready in 5 minutes")


def http_cell(client, index: str, endpoint: str):
    """A call of `endpoint` on `index`: (wall ms, server-reported search ms, doc ids)."""
    path = f"/v1/indexes/{index}/" + ("context" if endpoint == "context" else "search")

    def call(q: str):
        body = {"query": q} if endpoint == "context" else {"query": q, "k": K, "mode": endpoint}
        start = time.perf_counter()
        r = client.post(path, json=body)
        wall = 1000 * (time.perf_counter() - start)
        if r.status_code != 200:
            raise SystemExit(f"{path}: HTTP {r.status_code}: {r.text[:200]}")
        got = r.json()
        ids = [h["doc_id"] for h in got.get("hits", got.get("chunks", []))]
        return wall, got["timings"]["search_ms"], ids
    return call


def local_cell(index, endpoint: str, readers):
    """The same call in-process (`index.search`, `rag.context_for`): (wall ms, None, ids)."""
    from rag import context_for

    def call(q: str):
        start = time.perf_counter()
        if endpoint == "context":
            ids = [c.doc_id for c in context_for(index, q, readers=readers).chunks]
        else:
            ids = [h.doc_id for h in index.search(q, k=K, mode=endpoint, readers=readers)]
        return 1000 * (time.perf_counter() - start), None, ids
    return call


def rounds(cells: dict, queries: dict, hidden_ids: set, reps: int, warm: int, seed: int):
    """Every cell once a round, in a random order, query r % Q of its kind in round r (so (a)
    and (c) send the same words in the same round). {cell: {"wall": [...], "server": [...]}},
    the 1-minute load average every 25 rounds."""
    rng = random.Random(seed)
    out = {c: {"wall": [], "server": []} for c in cells}
    order, load = list(cells), []
    for r in range(warm + reps):
        rng.shuffle(order)
        for cell in order:
            texts = queries[cell[2]]
            wall, server, ids = cells[cell](texts[r % len(texts)])
            if hidden_ids.intersection(ids):
                raise SystemExit(f"{cell}: an outsider got hidden documents "
                                 f"{sorted(hidden_ids.intersection(ids))[:3]}")
            if r >= warm:
                out[cell]["wall"].append(wall)
                if server is not None:
                    out[cell]["server"].append(server)
        if r % 25 == 0:
            load.append(os.getloadavg()[0])
            print(f"  round {r + 1}/{warm + reps}, load {load[-1]:.2f}", flush=True)
    return out, load


def hr_finds_its_own(index, queries: list[str], owner: dict[str, str]) -> dict[str, int]:
    """Per mode, for how many (a) queries an `hr` reader's top hit is the hidden document the
    words came from: the queries do find what they are made of."""
    return {mode: sum(owner[q] == next((h.doc_id for h in index.search(q, k=1, mode=mode,
                                                                     readers=HIDDEN)), None)
                      for q in queries) for mode in ("lexical", "dense")}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import httpx

    from common.keys import Keyring, Principal, hash_key, write_keys
    from encoder import load_encoder
    from indexer import SemanticIndex, build_index
    from rag import token_counter

    encoder = load_encoder("minilm", backend=args.backend)
    docs, queries, owner = corpus(args, token_counter(encoder))
    vecs = vectors(docs, encoder)
    with tempfile.TemporaryDirectory(prefix="bench-access-timing-") as tmp:
        work = Path(tmp)
        visible = [i for i, d in enumerate(docs) if not d["metadata"]]
        build_index(docs, work / "root" / "with", model=encoder, preset=args.preset,
                    vectors=vecs)
        build_index([docs[i] for i in visible], work / "root" / "without", model=encoder,
                    preset=args.preset, vectors=vecs[visible])
        indexes = {name: SemanticIndex.open(work / "root" / name, encoder=encoder)
                   for name in ("with", "without")}
        texts = sorted({q for kind in queries.values() for q in kind})
        encoded = dict(zip(texts, encoder.encode(texts, prompt="query"), strict=True))
        for index in indexes.values():  # in-process: the search alone, queries encoded before
            index._encode_queries = lambda batch: np.stack([encoded[t] for t in batch])
        hr_finds = hr_finds_its_own(indexes["with"], queries["a"], owner)
        outsider = Principal("outsider", (hash_key(KEY, n=16, r=1, p=1),), ("sales",),
                             (("*", "read"),))
        write_keys(work / "keys.toml", Keyring((outsider,)))
        proc, url = serve(work / "root", work / "keys.toml", work / "service.log")
        try:
            client = httpx.Client(base_url=url, timeout=120,
                                  headers={"Authorization": f"Bearer {KEY}"})
            cells = {}
            for endpoint in ENDPOINTS:
                for kind in KINDS:
                    name = "without" if kind in TWIN else "with"
                    cells[("http", endpoint, kind)] = http_cell(client, name, endpoint)
                    cells[("in-process", endpoint, kind)] = local_cell(
                        indexes[name], endpoint, frozenset())
            samples, load = rounds(cells, queries, set(owner.values()), args.reps,
                                   args.warm, args.seed)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    rows, shifts = analyse(samples)
    setup = {"docs": len(docs), "hidden": args.hidden, "preset": args.preset,
             "backend": encoder.backend, "tokens": args.tokens, "reps": args.reps,
             "warm": args.warm, "load": load, "cpus": os.cpu_count(), "hr_finds": hr_finds,
             "checked": len(cells) * (args.reps + args.warm)}
    spread = {"|".join(c): {clock: [round(float(q), 4) for q in np.quantile(v, QUANTILES)]
                            for clock, v in times.items() if v}
              for c, times in samples.items()}
    write_results(args.name, {"setup": setup, "rows": rows, "shifts": shifts,
                              "quantiles": list(QUANTILES), "cells": spread},
                  table(rows, shifts, setup))
