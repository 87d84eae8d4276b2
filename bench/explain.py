"""How faithful and how costly are explanations? Deletion curves, completeness error, seconds.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.explain [--models minilm,e5-multilingual]
        [--sts 12] [--scifact 8] [--steps 16] [--chunk-tokens 64] [--threads 2]
        [--sets stsb-dev,scifact-train,stsb-zh-dev] [--merge]   # --merge: add rows to the results

On STS-B dev pairs (gold >= 3, so there is a match to explain; English, and Chinese STS-B for a
multilingual model: its words are jieba's) and SciFact train (query, best
chunk of a relevant abstract) pairs, each model explains each pair with integrated Jacobians and
with occlusion; then the second text's words are deleted in the order each method ranks them
(and by last-layer [CLS] attention, and at random) and the cosine is recorded. A lower area under
that curve means the order found what the score rests on. Writes bench/results/explain.md/.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from bench.kit.benchkit import RESULTS, data_dir, run_stamp, write_results
from bench.kit.explain_curves import GRID, auc, curves_for
from encoder import load_encoder
from indexer import ChunkingConfig, Document, chunk_documents
from metrics import load_beir

ORDERS = ("integrated-jacobians", "occlusion", "attention", "random")


def sts_pairs(data: Path, n: int, seed: int, folder: str = "stsb-en") -> list[tuple[str, str]]:
    rows = [json.loads(x) for x in (data / folder / "dev.jsonl").read_text().splitlines()]
    rows = [r for r in rows if r["score"] >= 3.0]
    return [(r["sentence1"], r["sentence2"]) for r in random.Random(seed).sample(rows, n)]


def scifact_pairs(data: Path, encoder, n: int, seed: int, chunk_tokens: int):
    """(query, the relevant abstract's chunk the model ranks first, as the index encodes it)."""
    corpus, queries, qrels = load_beir(data / "scifact", "train")
    picks = random.Random(seed).sample(sorted(qrels), n)
    config = ChunkingConfig(chunk_tokens=chunk_tokens, overlap=0)
    out = []
    for qid in picks:
        doc_id = sorted(qrels[qid])[0]
        doc = corpus[doc_id]
        chunks = chunk_documents(encoder, [Document(doc_id, doc["text"], doc["title"])], config)
        q = encoder.encode([queries[qid]], prompt="query")[0]
        c = encoder.encode([ch.encoded for ch in chunks], prompt="passage")
        out.append((queries[qid], chunks[int(np.argmax(c @ q))].encoded))
    return out


def measure(encoder, pairs, prompts, steps: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    seconds = {"integrated-jacobians": [], "occlusion": []}
    errors, rel_errors, curves = [], [], {o: [] for o in ORDERS}
    for i, (a, b) in enumerate(pairs):
        start = time.perf_counter()
        ij = encoder.explain(a, b, steps=steps, prompt_a=prompts[0], prompt_b=prompts[1])
        seconds["integrated-jacobians"].append(time.perf_counter() - start)
        start = time.perf_counter()
        occ = encoder.explain(a, b, method="occlusion", prompt_a=prompts[0], prompt_b=prompts[1])
        seconds["occlusion"].append(time.perf_counter() - start)
        errors.append(abs(ij.error))
        rel_errors.append(ij.relative_error)
        for name, curve in curves_for(encoder, a, b, prompts, ij, occ, rng).items():
            curves[name].append(curve)
        print(f"  pair {i + 1}/{len(pairs)}: {seconds['integrated-jacobians'][-1]:.1f} s, "
              f"rel. error {ij.relative_error:.4f}", flush=True)
    mean_curves = {o: np.mean(curves[o], axis=0) for o in ORDERS}
    return {
        "pairs": len(pairs),
        "steps": steps,
        "auc": {o: auc(mean_curves[o]) for o in ORDERS},
        "auc_wins_vs_random": {o: int(sum(auc(c) < auc(r) for c, r in
                                          zip(curves[o], curves["random"], strict=True)))
                               for o in ORDERS if o != "random"},
        "curves": {o: [round(float(x), 4) for x in mean_curves[o]] for o in ORDERS},
        "abs_error": summary(errors),
        "rel_error": summary(rel_errors),
        "seconds": {k: summary(v) for k, v in seconds.items()},
    }


def summary(values: list[float]) -> dict:
    v = sorted(values)
    return {"median": statistics.median(v), "p90": float(np.quantile(v, 0.9)), "max": v[-1],
            "min": v[0]}


def table(results: dict, meta: dict) -> str:
    lines = ["# Explanations: faithfulness (deletion curves) and cost", "",
             "Deletion AUC: mean cosine while the second text's words are removed in each order "
             "(0-100 % removed, 11 points; lower = the order found what the score rests on). "
             "Wins: pairs whose own curve lies below the random order's.", "",
             "| model | set | pairs | steps | AUC IJ | AUC occlusion | AUC attention | "
             "AUC random | "
             "wins IJ / occl / attn | rel. completeness error median / p90 / max | "
             "s per IJ explanation (median, max) | s per occlusion |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, r in results.items():
        model, dataset = key.split("|")
        a, w, e, s = r["auc"], r["auc_wins_vs_random"], r["rel_error"], r["seconds"]
        lines.append(
            f"| {model} | {dataset} | {r['pairs']} | {r['steps']} | "
            f"{a['integrated-jacobians']:.4f} | "
            f"{a['occlusion']:.4f} | {a['attention']:.4f} | {a['random']:.4f} | "
            f"{w['integrated-jacobians']} / {w['occlusion']} / {w['attention']} | "
            f"{e['median']:.4f} / {e['p90']:.4f} / {e['max']:.4f} | "
            f"{s['integrated-jacobians']['median']:.1f}, {s['integrated-jacobians']['max']:.1f} | "
            f"{s['occlusion']['median']:.2f} |")
    lines += ["", "Mean deletion curves (cosine at 0, 10, ..., 100 % of the words removed):", ""]
    for key, r in results.items():
        for order, curve in r["curves"].items():
            lines.append(f"- {key} {order}: {', '.join(f'{x:.3f}' for x in curve)}")
    lines += ["", *[f"- {k}: {v}" for k, v in meta.items() if k not in ("command", "merged")],
              ""]
    lines += [f"- rows added by `{c}`" for c in meta.get("merged", [])]
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="minilm,e5-multilingual")
    p.add_argument("--sts", type=int, default=12)
    p.add_argument("--scifact", type=int, default=8)
    p.add_argument("--sts-zh", type=int, default=4, help="Chinese STS-B dev pairs (stsb-zh-dev)")
    p.add_argument("--steps", type=int, default=16)
    p.add_argument("--chunk-tokens", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default="explain")
    p.add_argument("--sets", default="stsb-dev,scifact-train")
    p.add_argument("--merge", action="store_true", help="keep the rows already in the results")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    data = data_dir()
    meta = {"grid": [round(float(x), 2) for x in GRID],
            "note": "seconds are wall time, on a machine shared with other jobs"}
    results: dict = {}
    first = None  # with --merge: the stamp of the run that wrote the first rows
    if args.merge:
        old = json.loads((RESULTS / f"{args.name}.json").read_text())
        results, first = old["results"], old.get("stamp")
        if first is None and old["meta"].get("command"):  # results from before stamps
            meta["first rows by"] = old["meta"]["command"]
        now = run_stamp()
        meta["merged"] = [*old["meta"].get("merged", []),
                          f"{now['command']} (commit {now['commit']}, {now['date']})"]
    wanted = args.sets.split(",")
    for name in filter(None, args.models.split(",")):
        encoder = load_encoder(name)
        sets = {}
        # STS: both sides as queries (e5's symmetric-task prefix; minilm has none)
        if "stsb-dev" in wanted:
            sets["stsb-dev"] = (sts_pairs(data, args.sts, args.seed), ("query", "query"))
        if "stsb-zh-dev" in wanted:
            sets["stsb-zh-dev"] = (sts_pairs(data, args.sts_zh, args.seed, "stsb-zh"),
                                   ("query", "query"))
        if "scifact-train" in wanted:
            sets["scifact-train"] = (scifact_pairs(data, encoder, args.scifact, args.seed,
                                                   args.chunk_tokens), ("query", "passage"))
        for dataset, (pairs, prompts) in sets.items():
            print(f"{name} {dataset}: {len(pairs)} pairs", flush=True)
            results[f"{name}|{dataset}"] = measure(encoder, pairs, prompts, args.steps, args.seed)
            write_results(args.name, {"meta": meta, "results": results}, table(results, meta),
                          stamp=first)
    print(table(results, meta))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
