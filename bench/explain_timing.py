"""Seconds per explanation on a quiet machine (run alone): one STS-B-length
pair and one query + 48-token chunk, minilm and e5, integrated Jacobians and occlusion.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.explain_timing [--name explain-timing]

One sample per row after one warm-up explanation per model, torch fp32 with 2 threads.
Writes bench/results/NAME.md and .json.
"""

from __future__ import annotations

import argparse
import time

import torch

from bench.kit.benchkit import write_results
from encoder import load_encoder

PAIRS = {
    "sts-length pair": ("A man is playing a guitar on stage.", "Someone plays music in a concert."),
    "query + chunk": (
        "Vaccines reduce the risk of severe disease in older adults.",
        "Influenza vaccination and mortality: In a cohort of adults over 65, seasonal vaccination "
        "was associated with a lower risk of hospital admission for pneumonia and of death from "
        "any cause during the influenza season, after adjustment for health status."),
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--name", default="explain-timing", help="result files' name")
    args = p.parse_args()
    torch.set_num_threads(2)
    lines = ["# Seconds per explanation", "",
             "| model | pair | tokens (a + b) | method | steps | seconds | rel. error |",
             "|---|---|---|---|---|---|---|"]
    print("\n".join(lines[2:]))
    rows = []
    for name in ("minilm", "e5-multilingual"):
        enc = load_encoder(name)
        enc.explain("warm up", "the model", steps=1)
        for label, (a, b) in PAIRS.items():
            n = sum(enc.token_lengths([a, b]))
            for method, steps in (("integrated-jacobians", 8), ("integrated-jacobians", 16),
                                  ("occlusion", 0)):
                start = time.perf_counter()
                e = enc.explain(a, b, method=method, steps=max(steps, 1))
                s = time.perf_counter() - start
                err = f"{e.relative_error:.4f}" if steps else "-"
                rows.append({"model": name, "pair": label, "tokens": n, "method": method,
                             "steps": steps or None, "seconds": s,
                             "relative_error": e.relative_error if steps else None})
                lines.append(f"| {name} | {label} | {n} | {method} | {steps or '-'} | {s:.1f} | "
                             f"{err} |")
                print(lines[-1], flush=True)
    lines += ["", "- torch fp32, 2 threads, eager attention (explanations always run on the torch "
              "model, whatever backend encodes); one sample per row: read the order of "
              "magnitude, not the decimal.",
              "- tokens = the two texts' token counts together (with specials); rel. error = "
              "completeness error relative to the target (see bench/results/explain.md)."]
    write_results(args.name, {"rows": rows, "threads": 2}, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
