"""Encoding backends side by side: speed, single-query latency, peak RSS, fidelity and quality,
for every bundled model and backend, against plain sentence-transformers fp32 torch (`st`).

Each (model, backend) runs in a fresh subprocess (encode_worker.py) whose RSS psutil samples;
the runs are interleaved round by round so machine noise hits all alike; speeds are medians
over rounds. The first round also scores the full dev sets and keeps the vectors that the
cosine-to-fp32 columns compare (against `st` on the same texts).

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.encode \
        [--n 1000] [--passages 200] [--queries 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.kit.benchkit import RESULTS, median, write_results
from bench.kit.encodekit import (
    BACKENDS,
    MODELS,
    REFERENCE,
    run_measured,
    scifact_passages,
    stsb_sentences,
)

WORKER = "bench.encode_worker"


def queries(n: int) -> list[str]:
    from bench.kit.benchkit import data_dir

    rows = [json.loads(line) for line in (data_dir() / "scifact" / "queries.jsonl").open()]
    return [r["text"] for r in rows[:n]]


def cosines(vectors: dict, model: str, backend: str) -> dict:
    """Mean and min cosine of each text's vector to the reference's, sentences + passages."""
    ref, got = vectors.get((model, REFERENCE)), vectors.get((model, backend))
    if ref is None or got is None:
        return {}
    both = np.concatenate([(ref[k] * got[k]).sum(axis=1) for k in ("sentences", "passages")])
    return {"cos_mean": float(both.mean()), "cos_min": float(both.min())}


def summarise(runs: dict, vectors: dict) -> list[dict]:
    rows = []
    for (model, backend), results in runs.items():
        if not results:
            continue
        base = runs[(model, REFERENCE)]
        row = {"model": model, "backend": backend, "rounds": len(results),
               "runs": results[0].get("runs"), "fidelity_at_export": results[0].get("fidelity"),
               "note": results[0].get("note")}
        for key in ("sentences_per_s", "passages_per_s", "p50_ms", "p90_ms", "peak_rss_mb",
                    "load_s"):
            row[key] = median([r[key] for r in results])
        for key in ("sentences_per_s", "passages_per_s"):
            row[key.replace("_per_s", "_ratio")] = row[key] / median([r[key] for r in base])
        row.update(cosines(vectors, model, backend))
        first = next((r for r in results if "quality" in r), None)
        ref = next((r for r in runs.get((model, "torch"), []) if "quality" in r), None)
        if first:
            row["quality"] = {label: {**q, "delta_vs_torch": (q["spearman"] - ref["quality"][label]
                                                               ["spearman"]) if ref else None}
                              for label, q in first["quality"].items()}
        rows.append(row)
    return rows


def score(quality: dict, label: str) -> str:
    """"86.62 (-0.10)": Spearman x 100 and its difference to the torch backend's."""
    if label not in quality:
        return "-"
    delta = quality[label]["delta_vs_torch"]
    return f"{quality[label]['spearman']:.2f}" + (f" ({delta:+.2f})" if delta is not None else "")


def fidelity(row: dict) -> str:
    """The min cosine to torch the export measured when it was made (its gate: 0.99)."""
    value = row.get("fidelity_at_export")
    if row["backend"] in (REFERENCE, "torch") or value is None:
        return "-"
    return f"{value:.4f}" + ("" if value >= 0.99 else " (below gate)")


def table(rows: list[dict], meta: dict) -> str:
    lines = ["# Encoding backends side by side", "",
             f"Texts: {meta['texts']}", "",
             "| model | backend | sentences/s | × st | passages/s | × st | 1-query p50 ms "
             "(p90) | peak RSS MB | cos mean / min to fp32 | fidelity at export | "
             "STS-B dev ρ (Δ torch) | Chinese STS-B dev ρ (Δ torch) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|---|"]
    for r in rows:
        q = r.get("quality", {})
        cos = f"{r['cos_mean']:.5f} / {r['cos_min']:.4f}" if "cos_mean" in r else "-"
        lines.append(
            f"| {r['model']} | {r['backend']} | {r['sentences_per_s']:.1f} | "
            f"{r['sentences_ratio']:.2f}x | {r['passages_per_s']:.2f} | "
            f"{r['passages_ratio']:.2f}x | {r['p50_ms']:.1f} ({r['p90_ms']:.1f}) | "
            f"{r['peak_rss_mb']:.0f} | {cos} | {fidelity(r)} | {score(q, 'STS-B dev')} | "
            f"{score(q, 'Chinese STS-B dev')} |")
    lines += ["", "`st` = plain sentence-transformers fp32 torch on the same weights (the "
              "reference of every ratio and cosine); the other rows are "
              "`load_encoder(model, backend=...)`. ρ = Spearman ×100 on the full dev set; "
              "Δ torch = this row's minus the torch backend's (negative = a loss). Speeds are "
              "medians of the rounds; "
              "batch 32; e5 gets `query: ` / `passage: ` prefixes. Peak RSS is the largest RSS "
              "psutil sampled (20 ms) in the row's own process, model load included.", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()
              if k not in ("command", "machine", "date", "texts", "per_round")]
    if meta.get("per_round"):
        lines += ["", "Per round (sentences/s, passages/s, p50 ms, peak RSS MB):", "", "```"]
        lines += meta["per_round"] + ["```"]
    notes = [f"{r['model']}/{r['backend']}: {r['note']}" for r in rows if r.get("note")]
    lines += [f"- note {n}" for n in notes]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1000, help="STS-B dev sentences timed")
    p.add_argument("--passages", type=int, default=200, help="SciFact abstracts timed")
    p.add_argument("--queries", type=int, default=100, help="single queries timed (SciFact)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--backends", default=",".join((REFERENCE, *BACKENDS)))
    p.add_argument("--name", default="encode")
    p.add_argument("--report-only", action="store_true",
                   help="rewrite NAME.md from NAME.json (no measuring)")
    args = p.parse_args()
    if args.report_only:
        saved = json.loads((RESULTS / f"{args.name}.json").read_text())
        write_results(args.name, saved, table(saved["rows"], saved["meta"]),
                      stamp=saved.get("stamp"))  # the measuring run's stamp, not this one's
        return
    texts = {"sentences": stsb_sentences(args.n), "passages": scifact_passages(args.passages),
             "queries": queries(args.queries)}
    work = Path(tempfile.mkdtemp(prefix="bertscope-encode-"))
    (work / "texts.json").write_text(json.dumps(texts))
    keys = [(m, b) for m in args.models.split(",") for b in args.backends.split(",")]
    runs: dict = {k: [] for k in keys}
    vectors, failed, started, per_round = {}, {}, time.time(), []
    first_load = {}  # first use: the export is made here when not cached yet
    for model, backend in keys:
        if backend != REFERENCE:
            try:
                res = run_measured(WORKER, [model, backend, str(work / "texts.json"), "-",
                                            "--prepare"])
                first_load[f"{model}/{backend}"] = round(res["load_s"], 1)
            except Exception as exc:  # reported by the rounds below
                print(f"{model}/{backend} prepare failed: {exc}", flush=True)
    print(f"first loads (s): {first_load}", flush=True)
    for r in range(args.rounds):
        for model, backend in keys:
            if (model, backend) in failed:
                continue
            extra = ["--quality"] if r == 0 and backend != REFERENCE else []
            out = work / f"{model}-{backend}.npz"
            try:
                res = run_measured(WORKER, [model, backend, str(work / "texts.json"), str(out),
                                            *extra])
            except Exception as exc:  # a backend that cannot run is reported, not fatal
                failed[(model, backend)] = str(exc).strip().splitlines()[-1][:300]
                print(f"{model}/{backend} FAILED: {failed[(model, backend)]}", flush=True)
                continue
            if r == 0:
                vectors[(model, backend)] = dict(np.load(out))
            runs[(model, backend)].append(res)
            per_round.append(f"round {r + 1} {model:16s} {backend:14s} "
                             f"{res['sentences_per_s']:7.1f} {res['passages_per_s']:6.2f} "
                             f"{res['p50_ms']:6.1f} {res['peak_rss_mb']:5.0f}")
            print(f"round {r + 1} {model:16s} {backend:14s} {res['sentences_per_s']:7.1f} s/s "
                  f"{res['passages_per_s']:6.2f} p/s  p50 {res['p50_ms']:5.1f} ms  "
                  f"{res['peak_rss_mb']:5.0f} MB  {res.get('quality', '')}", flush=True)
    rows = summarise(runs, vectors)
    meta = {"texts": f"{len(texts['sentences'])} distinct STS-B dev sentences; "
            f"{len(texts['passages'])} SciFact corpus abstracts (title + text, one in "
            f"{5183 // args.passages}, truncated at each model's max_length); "
            f"{len(texts['queries'])} SciFact queries one at a time for p50; quality on the full "
            "STS-B dev (1,500 pairs) and Chinese STS-B dev (1,458 pairs, e5 only)",
            "rounds": args.rounds, "wall_s": round(time.time() - started),
            "first load s (export included when not cached)": first_load,
            "failed": {f"{m}/{b}": e for (m, b), e in failed.items()},
            "per_round": per_round}
    text = table(rows, meta)
    write_results(args.name, {"meta": meta, "rows": rows}, text)
    print(text)


if __name__ == "__main__":
    main()
