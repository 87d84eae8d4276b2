"""What the openvino-int8 export costs and keeps, with NNCF's fast bias correction (what the
product uses) beside the full one, for each bundled model, in one run: seconds to build the
export (tracing, statistics, quantisation; the fidelity check apart) and its min / mean cosine to
torch fp32 on the fidelity texts (the gate is a min of 0.99).

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.export_int8 [--models minilm e5-multilingual]

Writes bench/results/export-int8.{json,md}. Run it alone: two exports at once on 2 cores slow
each other many times over."""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from bench.kit.benchkit import write_results
from encoder import export_build
from encoder.registry import BUNDLED


def export_once(model, *, fast: bool, multilingual: bool) -> dict:
    export_build.FAST_BIAS_CORRECTION = fast
    with tempfile.TemporaryDirectory() as folder:
        made = export_build.build(model, "openvino-int8", Path(folder), multilingual=multilingual)
    return {"build_s": made["build_s"], **{k: made["fidelity"][k]
                                           for k in ("min_cosine", "mean_cosine", "texts")}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["minilm", "e5-multilingual"],
                        choices=sorted(BUNDLED))
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    from sentence_transformers import SentenceTransformer

    rows = []
    for name in args.models:
        model = SentenceTransformer(str(BUNDLED[name].resolve()), device="cpu")
        multilingual = export_build.is_multilingual(model, export_build.st_languages(model))
        for fast in (True, False):
            runs = [export_once(model, fast=fast, multilingual=multilingual)
                    for _ in range(args.repeats)]
            row = {"model": name, "bias_correction": "fast" if fast else "full",
                   "build_s": statistics.median(r["build_s"] for r in runs),
                   "min_cosine": runs[0]["min_cosine"], "mean_cosine": runs[0]["mean_cosine"],
                   "texts": runs[0]["texts"], "repeats": len(runs)}
            print(row, flush=True)
            rows.append(row)
    lines = ["# openvino-int8 export: fast vs full bias correction", "",
             "| model | bias correction | build (s, median) | min cosine | mean cosine |",
             "|---|---|---|---|---|"]
    lines += [f"| {r['model']} | {r['bias_correction']} | {r['build_s']:.1f} | "
              f"{r['min_cosine']:.4f} | {r['mean_cosine']:.4f} |" for r in rows]
    write_results("export-int8", {"rows": rows}, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
