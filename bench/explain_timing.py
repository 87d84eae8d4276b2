"""Seconds per explanation on a quiet machine (run alone): one STS-B-length
pair and one query + 48-token chunk, minilm and e5, integrated Jacobians and occlusion.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/explain_timing.py
"""

from __future__ import annotations

import time

import torch

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
    torch.set_num_threads(2)
    print("| model | pair | tokens (a + b) | method | steps | seconds | rel. error |")
    print("|---|---|---|---|---|---|---|")
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
                print(f"| {name} | {label} | {n} | {method} | {steps or '-'} | {s:.1f} | {err} |",
                      flush=True)


if __name__ == "__main__":
    main()
