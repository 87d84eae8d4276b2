"""The cheap wins, measured on one backend: batch size, threads (1 vs 2) and length-sorted
batches (sentence-transformers' own sort by characters, none, or by tokens).

Each (model, backend, threads) runs in its own process (encode_worker.py --sweep), rounds
interleaved; figures are medians.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.encode_sweep \
        [--backends onnx] [--models minilm] [--n 500] [--passages 100] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench.kit.benchkit import median, write_results
from bench.kit.encodekit import run_measured, scifact_passages, stsb_sentences

WORKER = "bench.encode_worker"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="minilm")
    p.add_argument("--backends", default="onnx")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--batches", default="16,32,64,128")
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--passages", type=int, default=100)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    texts = {"sentences": stsb_sentences(args.n), "passages": scifact_passages(args.passages),
             "queries": []}
    work = Path(tempfile.mkdtemp(prefix="bertscope-sweep-"))
    (work / "texts.json").write_text(json.dumps(texts))
    keys = [(m, b, int(t)) for m in args.models.split(",") for b in args.backends.split(",")
            for t in args.threads.split(",")]
    speeds: dict[tuple, list[float]] = defaultdict(list)
    runs_as, started = {}, time.time()
    for r in range(args.rounds):
        for model, backend, threads in keys:
            res = run_measured(WORKER, [model, backend, str(work / "texts.json"),
                                        str(work / "unused.npz"), "--threads", str(threads),
                                        "--sweep", args.batches])
            runs_as[(model, backend, threads)] = f"{res.get('runs')}; {res.get('threads')}"
            for row in res["sweep"]:
                key = (model, backend, threads, row["texts"], row["batch"], row["order"])
                speeds[key].append(row["per_s"])
            print(f"round {r + 1} {model} {backend} threads={threads} done", flush=True)
    rows = []
    for key, values in speeds.items():
        model, backend, threads, kind, batch, order = key
        base = median(speeds[(model, backend, 2, kind, 32, "sorted")]) \
            if (model, backend, 2, kind, 32, "sorted") in speeds else None
        rate = median(values)
        rows.append({"model": model, "backend": backend, "threads": threads, "texts": kind,
                     "batch": batch, "order": order, "per_s": rate,
                     "vs_default": rate / base if base else None, "runs": values})
    lines = ["# Cheap wins: batch size, threads, length-sorted batches", "",
             f"Texts: {len(texts['sentences'])} STS-B dev sentences, {len(texts['passages'])} "
             f"SciFact abstracts; median of {args.rounds} interleaved rounds; wall "
             f"{time.time() - started:.0f} s.", "",
             "`sorted`: one encode call, which sorts the whole input longest first (an export "
             "run by `Encoder`: by token count; torch: sentence-transformers, by characters); "
             "`unsorted`: one call per batch in the data's order (no sorting across batches); "
             "`token-sorted`: one call per batch after sorting by token count here. "
             "`× default` is against 2 threads, batch 32, sorted.", ""]
    for (model, backend, threads), how in runs_as.items():
        lines.append(f"- {model} / {backend} / {threads} thread(s): runs {how}")
    lines += ["", "| model | backend | threads | texts | batch | order | texts/s | × default |",
              "|---|---|---:|---|---:|---|---:|---:|"]
    for r in sorted(rows, key=lambda r: (r["model"], r["backend"], r["texts"], r["threads"],
                                         r["batch"], r["order"])):
        ratio = f"{r['vs_default']:.2f}x" if r["vs_default"] else "-"
        lines.append(f"| {r['model']} | {r['backend']} | {r['threads']} | {r['texts']} | "
                     f"{r['batch']} | {r['order']} | {r['per_s']:.1f} | {ratio} |")
    text = "\n".join(lines) + "\n"
    write_results("encode_sweep", {"rows": rows}, text)
    print(text)


if __name__ == "__main__":
    main()
