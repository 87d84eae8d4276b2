"""A long build into milvus-lite on a busy machine: every SciFact abstract (5,183) built by
`python -m indexer build --store milvus` while other processes keep the cores busy, its stderr
kept whole. The build's Milvus client is opened before encoding and sits idle for as long as
encoding takes; before the keepalive fix such a client drew gRPC `GOAWAY too_many_pings` from
milvus-lite after about 30 s idle (printed on the user's terminal) and a reconnect could fail.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.milvus_long_build [--model minilm] [--busy 1]

Writes NAME.md and .json (--name, default milvus-long-build) to --out (default bench/results):
whether it published, the documents in the index, the encoding and total seconds, the gRPC
lines on stderr, the load average before and after."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.kit.benchkit import REPO, RESULTS, data_dir, write_results

NOISE = ("GOAWAY", "too_many_pings", "chttp2", "Fail connecting")


def busy(n: int) -> list[subprocess.Popen]:
    """`n` processes spinning a core each (the machine kept busy by other work)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def corpus_file(tmp: Path) -> tuple[Path, int]:
    """SciFact's corpus as the JSONL `indexer build` reads, in the scratch folder `tmp`."""
    rows = [json.loads(line) for line in
            (data_dir() / "scifact" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    lines = [json.dumps({"id": r["_id"], "title": r.get("title", ""),
                         "text": r["text"] or r.get("title", "")}, ensure_ascii=False) + "\n"
             for r in rows]
    (tmp / "scifact.jsonl").write_text("".join(lines), encoding="utf-8")
    return tmp / "scifact.jsonl", len(rows)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="minilm")
    p.add_argument("--busy", type=int, default=1, help="spinning processes beside the build")
    p.add_argument("--limit", type=int, default=0, help="first N abstracts only (a dry run)")
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--name", default="milvus-long-build")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="milvus-long-") as work:
        tmp = Path(work)
        corpus, n = corpus_file(tmp)
        if args.limit:
            lines = corpus.read_text(encoding="utf-8").splitlines(keepends=True)[:args.limit]
            (tmp / "scifact.jsonl").write_text("".join(lines), encoding="utf-8")
            n = len(lines)
        db = tmp / "scifact.db"
        load_before = os.getloadavg()
        spinners = busy(args.busy)
        clock = time.perf_counter()
        try:
            with (tmp / "stderr.txt").open("w") as err:
                done = subprocess.run(
                    [sys.executable, "-m", "indexer", "build", "--corpus", str(corpus),
                     "--store", "milvus", "--milvus-uri", str(db), "--collection", "scifact",
                     "--model", args.model, "--index", "flat"],
                    stdout=subprocess.PIPE, stderr=err, text=True, cwd=REPO,
                    env={**os.environ, "PYTHONPATH": str(REPO)})
        finally:
            for s in spinners:
                s.kill()
        seconds = time.perf_counter() - clock
        load_after = os.getloadavg()
        stderr = (tmp / "stderr.txt").read_text(encoding="utf-8", errors="replace")
        noise = [line for line in stderr.splitlines() if any(w in line for w in NOISE)]
        facts = {"published": done.returncode == 0, "exit_code": done.returncode}
        if done.returncode == 0:
            from indexer import SemanticIndex

            index = SemanticIndex.open(f"milvus://{db}?collection=scifact")
            stages = index.manifest["build"]["stages"]
            facts.update(documents=len(index), chunks=index.counts()["chunks"],
                         encode_s=round(stages["encode_s"], 1))
            index.close()
        else:
            facts["stderr_tail"] = stderr[-2000:]
    facts.update(abstracts=n, model=args.model, total_s=round(seconds, 1),
                 grpc_lines=len(noise), grpc_examples=noise[:3], busy_processes=args.busy,
                 load_before=[round(x, 2) for x in load_before],
                 load_after=[round(x, 2) for x in load_after])
    text = table(facts)
    write_results(args.name, facts, text, folder=args.out)
    print(text)
    return 0 if facts["published"] and not noise else 1


def table(f: dict) -> str:
    lines = [f"# A long build into milvus-lite on a busy machine ({f['abstracts']:,} SciFact "
             f"abstracts, {f['model']}, {f['busy_processes']} spinning process(es) beside it)",
             "", "| published | documents | chunks | encoding s | total s | gRPC lines on stderr "
             "| load before → after (1/5/15 min) |", "|---|---:|---:|---:|---:|---:|---|",
             f"| {'yes' if f['published'] else '**no** (exit ' + str(f['exit_code']) + ')'} | "
             f"{f.get('documents', '-')} | {f.get('chunks', '-')} | {f.get('encode_s', '-')} | "
             f"{f['total_s']} | {f['grpc_lines']} | {f['load_before']} → {f['load_after']} |"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
