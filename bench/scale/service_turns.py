"""`python -m bench.scale.service_turns ROOT CORPUS_DIR OUT.json`: one client's search p50
through `python -m service` over ROOT (which holds one index, `index`) beside the same call
in-process, in alternating turns of 25 queries (the host's speed drifts; see
bench/serve_one_client.py), hybrid k=10. milvus-lite lets one process open its file, and keeps
it until that process exits: a Milvus index is searched in-process first, by a child process
(`--in-process`), then through the service."""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .corpus import ScaleCorpus

BLOCK, K, MODE = 25, 10, "hybrid"


def start(root: Path, log: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [sys.executable, "-m", "service", "--port", str(port), "--index-root", str(root),
            "--log-level", "warning"]
    proc = subprocess.Popen(argv, stdout=log.open("ab"), stderr=subprocess.STDOUT,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return proc, f"http://127.0.0.1:{port}"


def wait_ready(proc: subprocess.Popen, url: str, timeout: float = 600) -> float:
    import httpx

    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if proc.poll() is not None:
            raise SystemExit("the service exited; see its log")
        try:
            if httpx.get(url + "/ready", timeout=60).status_code == 200:
                return time.perf_counter() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the service was not ready in {timeout:.0f} s")


def timed(call, texts: list[str]) -> list[float]:
    """Milliseconds of `call(q)` for each query."""
    out = []
    for q in texts:
        t = time.perf_counter()
        call(q)
        out.append(1000 * (time.perf_counter() - t))
    return out


def in_process(root: Path, data: ScaleCorpus, out: Path) -> None:
    """The Milvus index's in-process times (ms) into `out`, from a process that then exits."""
    from indexer import SemanticIndex

    texts = [q["text"] for q in data.queries()]
    index = SemanticIndex.open(root / "index.milvus")
    timed(lambda q: index.search(q, k=K, mode=MODE), texts[:20])  # warm
    out.write_text(json.dumps(timed(lambda q: index.search(q, k=K, mode=MODE), texts)))


def main() -> None:
    import httpx

    from indexer import SemanticIndex

    if sys.argv[1] == "--in-process":
        return in_process(Path(sys.argv[2]), ScaleCorpus(Path(sys.argv[3])), Path(sys.argv[4]))
    root, data, out = Path(sys.argv[1]), ScaleCorpus(Path(sys.argv[2])), Path(sys.argv[3])
    texts = [q["text"] for q in data.queries()]
    milvus = (root / "index.milvus").exists()
    samples: dict[str, list[float]] = {"in-process": [], "service": []}
    if milvus:  # milvus-lite lets one process open its file: in-process first, then served
        subprocess.run([sys.executable, "-m", "bench.scale.service_turns", "--in-process",
                        str(root), str(data.folder), str(out)], check=True)
        samples["in-process"] = json.loads(out.read_text())
    proc, url = start(root, out.with_suffix(".log"))
    try:
        ready_s = wait_ready(proc, url)
        client = httpx.Client(base_url=url, timeout=120)

        def remote(q: str) -> None:
            r = client.post("/v1/indexes/index/search", json={"query": q, "k": K, "mode": MODE})
            if r.status_code != 200:
                raise SystemExit(f"HTTP {r.status_code}: {r.text[:200]}")

        timed(remote, texts[:20])  # warm
        if milvus:
            samples["service"] = timed(remote, texts)
        else:  # alternating turns: the host's drift falls on both sides alike
            index = SemanticIndex.open(root / "index")

            def local(q: str) -> None:
                index.search(q, k=K, mode=MODE)

            timed(local, texts[:20])
            for b, first in enumerate(range(0, len(texts), BLOCK)):
                order = [("in-process", local), ("service", remote)]
                for name, call in order if b % 2 == 0 else order[::-1]:
                    samples[name] += timed(call, texts[first:first + BLOCK])
        p50 = {k: statistics.median(v) for k, v in samples.items()}
        out.write_text(json.dumps({"ready_s": round(ready_s, 1), "mode": MODE,
                                   "turns": "one after the other" if milvus else "alternating",
                                   "in_process_p50_ms": round(p50["in-process"], 2),
                                   "service_p50_ms": round(p50["service"], 2),
                                   "ratio": round(p50["service"] / p50["in-process"], 3)}))
    finally:
        proc.terminate()
        proc.wait(timeout=60)


if __name__ == "__main__":
    main()
