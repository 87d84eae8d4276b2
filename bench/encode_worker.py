"""One (model, backend) measurement in its own process, run by encode.py / encode_sweep.py
through `encodekit.run_measured` (which samples its RSS); prints one JSON line.

    python -m bench.encode_worker MODEL BACKEND TEXTS.json OUT.npz [--quality] [--threads N]
        [--sweep BATCHES]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from functools import partial
from pathlib import Path

import numpy as np


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def single_query_ms(encode, queries: list[str], prompt: str) -> dict:
    """Median / p90 milliseconds of encoding one query per call."""
    for q in queries[:5]:
        encode([q], 1, prompt)
    times = [1000 * timed(lambda q=q: encode([q], 1, prompt))[0] for q in queries]
    times.sort()
    return {"p50_ms": statistics.median(times), "p90_ms": times[int(0.9 * (len(times) - 1))]}


def quality(encode, model: str) -> dict:
    from bench.kit.encodekit import quality_sets, sts_pairs
    from metrics import sts_scores

    scores = {}
    for label, folder in quality_sets(model).items():
        a, b, gold = sts_pairs(folder)
        va, vb = encode(a, 32, "query"), encode(b, 32, "query")
        scores[label] = {"pairs": len(gold), "spearman": sts_scores(va, vb, gold)["spearman"]}
    return scores


def in_batches(encode, items: list[str], bs: int, prompt: str) -> None:
    """One encode call per batch, in the given order: no sorting across batches."""
    for i in range(0, len(items), bs):
        encode(items[i : i + bs], bs, prompt)


def sweep(runner, texts: dict, batches: list[int]) -> list[dict]:
    """Sentences/s and passages/s per batch size and order: `sorted` is one call (the encoder
    sorts the whole input longest first: exports by tokens, sentence-transformers by
    characters), `unsorted` one call per batch in the given order, `token-sorted` one call per
    batch after sorting by token count here."""
    rows = []
    for kind, prompt in (("sentences", "query"), ("passages", "passage")):
        items = texts[kind]
        by_tokens = [items[i] for i in runner.token_order(items)]
        for bs in batches:
            for order, (fn, arg) in {"sorted": (runner.encode, items),
                                     "unsorted": (partial(in_batches, runner.encode), items),
                                     "token-sorted": (partial(in_batches, runner.encode),
                                                      by_tokens)}.items():
                seconds, _ = timed(partial(fn, arg, bs, prompt))
                rows.append({"texts": kind, "batch": bs, "order": order,
                             "per_s": len(items) / seconds})
    return rows


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("backend")
    p.add_argument("texts")
    p.add_argument("out")
    p.add_argument("--quality", action="store_true")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--sweep", default="", help="batch sizes, e.g. 16,32,64,128: sweep only")
    p.add_argument("--prepare", action="store_true", help="only load (export on first use)")
    args = p.parse_args()
    from bench.kit.encodekit import Runner, set_threads

    if args.threads:
        set_threads(args.threads)
    texts = json.loads(Path(args.texts).read_text())
    load_s, runner = timed(lambda: Runner(args.model, args.backend))
    encode, about = runner.encode, dict(runner.about)
    if args.threads:
        about["threads"] = runner.configure_threads(args.threads)
    if args.prepare:
        print(json.dumps({"load_s": load_s, **about}))
        return
    encode(texts["sentences"][:32], args.batch, "query")  # warm-up
    encode(texts["passages"][:8], args.batch, "passage")
    result = {"model": args.model, "backend": args.backend, **about, "load_s": load_s}
    if args.sweep:
        result["sweep"] = sweep(runner, texts, [int(b) for b in args.sweep.split(",")])
        print(json.dumps(result))
        return
    s_sec, s_vec = timed(lambda: encode(texts["sentences"], args.batch, "query"))
    p_sec, p_vec = timed(lambda: encode(texts["passages"], args.batch, "passage"))
    result.update(sentences_per_s=len(s_vec) / s_sec, passages_per_s=len(p_vec) / p_sec,
                  **single_query_ms(encode, texts["queries"], "query"))
    np.savez(args.out, sentences=np.asarray(s_vec, np.float32),
             passages=np.asarray(p_vec, np.float32))
    if args.quality:
        result["quality"] = quality(encode, args.model)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
