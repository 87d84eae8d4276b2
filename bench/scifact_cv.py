"""The `scifact` recipe's cross-validated figures: dense, and hybrid with BM25.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.scifact_cv --cv ~/.cache/bertscope/runs/scifact

Every train query's dense list comes from the fold model that did not train on it
(`fold-K/cv_run.json`, written by `python -m training fit --config recipes/scifact.json`); BM25
is over whole documents (title + text). Fusion weights are chosen on the other folds' queries
(bench/kit/fusion_cv.py), so no query picks the weights it is scored with; the rows "k1 and b by
CV" choose BM25's parameters from a small grid the same way, together with the weights.
`--baseline minilm` scores the bundled model the same way (whole documents cut at the recipe's
max length), once, cached. While folds are missing (a run still going), every system is scored on
the finished folds' queries only, and the table says so.
Writes scifact_cv.md and .json to --out (default bench/results; --name to change the name).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.kit.benchkit import RESULTS, data_dir, write_results
from bench.kit.fusion_cv import cross_validate, cross_validate_configs, paired_bootstrap, simplex
from bench.kit.scifact import bm25_grid
from common import bertscope_home
from common.lexical import Bm25Params
from metrics import evaluate_run, load_beir

BM25_K1 = (0.6, 0.9, 1.2, 1.5, 2.0)  # the BM25 grid the folds choose from
BM25_B = (0.3, 0.5, 0.75, 0.9)


def baseline_run(model: str, corpus: dict, queries: dict, max_length: int | None) -> dict:
    """The bundled model's exact top 100 over whole documents cut at `max_length` tokens (cached:
    it encodes the corpus)."""
    from training.crossval import dense_run

    cut = f"-{max_length}" if max_length else ""
    path = bertscope_home() / "bench" / f"scifact-train-whole-docs-{model}{cut}.json"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        run = dense_run(model, corpus, queries, max_length=max_length)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(run))
        tmp.replace(path)
    return json.loads(path.read_text())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cv", help="output folder of the scifact recipe")
    p.add_argument("--baseline", default="minilm", help="bundled model to compare, or ''")
    p.add_argument("--folds", type=int, default=5, help="folds for choosing fusion weights")
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--name", default="scifact_cv", help="result files' name")
    p.add_argument("--baseline-only", type=int, metavar="MAX_LENGTH",
                   help="only compute (and cache) the baseline's run at this length, then stop "
                        "(before the recipe has run)")
    args = p.parse_args()

    corpus, queries, qrels = load_beir(data_dir() / "scifact", "train")
    if args.baseline_only:
        baseline_run(args.baseline, corpus, queries, args.baseline_only)
        return 0
    if not args.cv:
        p.error("--cv FOLDER is required (the scifact recipe's --out)")
    cv_dir = Path(args.cv).expanduser()
    record = json.loads((cv_dir / "crossval.json").read_text())
    max_length = record.get("max_length")
    tuned: dict = {}
    done = [k for k in range(record["folds"]) if (cv_dir / f"fold-{k}" / "cv_run.json").is_file()]
    for k in done:
        tuned.update(json.loads((cv_dir / f"fold-{k}" / "cv_run.json").read_text()))
    if not tuned:
        raise SystemExit(f"{cv_dir}: no fold has finished yet (no fold-K/cv_run.json)")
    qids = sorted(tuned)  # every query once all folds are done
    qrels = {q: qrels[q] for q in qids}
    default = Bm25Params()  # in the grid
    grid_params = [Bm25Params(k1, b) for k1 in BM25_K1 for b in BM25_B]
    bm25_runs = {f"k1={p.k1} b={p.b}": run for p, (run, _) in
                 bm25_grid(corpus, qids, [queries[q] for q in qids], grid_params).items()}
    bm25 = bm25_runs[f"k1={default.k1} b={default.b}"]
    dense = {"fine-tuned (CV)": tuned}
    if args.baseline:
        full = baseline_run(args.baseline, corpus, queries, max_length)
        dense[f"bundled {args.baseline}"] = {q: full[q] for q in qids}

    rows = [{"system": f"BM25 whole documents (k1={default.k1}, b={default.b})",
             **evaluate_run(bm25, qrels), "weights": "-"}]
    res = cross_validate_configs({k: [r] for k, r in bm25_runs.items()}, qrels, "zscore", [(1.0,)],
                                 folds=args.folds, seed=15)
    rows.append({"system": "BM25 whole documents, k1 and b by CV", **res["scores"],
                 "weights": chosen_text(res)})
    grid = simplex(2, 0.05)
    fused: dict[tuple[str, str], dict] = {}  # (dense name, method) -> run
    for name, run in dense.items():
        rows.append({"system": f"dense, {name}", "dense": name, "method": "-",
                     **evaluate_run(run, qrels), "weights": "-"})
        fused[name, "-"] = run
        for method in ("rrf", "minmax", "zscore"):
            equal = method == "rrf"
            res = cross_validate([bm25, run], qrels, method, [(0.5, 0.5)] if equal else grid,
                                 folds=args.folds, seed=15)
            ws = sorted({tuple(w) for w in res["weights"].values()})
            label = "RRF k=60" if equal else f"convex {method}, weight by CV"
            rows.append({"system": f"hybrid {label} (BM25, {name})", "dense": name,
                         "method": method, **res["scores"],
                         "weights": "; ".join(str(w) for w in ws)})
            fused[name, method] = res["run"]
        for method in ("minmax", "zscore"):  # BM25's k1 and b chosen with the weights
            res = cross_validate_configs({k: [r, run] for k, r in bm25_runs.items()}, qrels,
                                         method, grid, folds=args.folds, seed=15)
            rows.append({"system": f"hybrid convex {method}, BM25 k1 and b and weight by CV "
                                   f"(BM25, {name})", "dense": name, "method": f"{method}-k1b",
                         **res["scores"], "weights": chosen_text(res)})
            fused[name, f"{method}-k1b"] = res["run"]
        for r in rows[-6:]:
            print(json.dumps(r), flush=True)
    base = f"bundled {args.baseline}"
    for r in rows:  # the fine-tuned model against the bundled one, same system, same queries
        if r.get("dense") == "fine-tuned (CV)" and (base, r["method"]) in fused:
            r["vs_bundled"] = paired_bootstrap(fused["fine-tuned (CV)", r["method"]],
                                               fused[base, r["method"]], qrels)

    lines = ["# SciFact train, cross-validated: the `scifact` recipe", "",
             f"{record['folds']}-fold cross-validation over the {len(qids)} judged train queries "
             f"of {'all' if len(done) == record['folds'] else 'the finished'} folds "
             f"(done: {', '.join(map(str, done))}; each query's dense list from "
             f"the model that did not train on it; recipe folds seed {record['seed']}); whole "
             f"documents cut at {max_length or 'the model limit of'} tokens for every dense "
             f"system (the folds trained at {record.get('train_max_length', max_length)}).", "",
             "| system | nDCG@10 | Δ nDCG@10 vs the bundled model [95% CI] (queries better / "
             "worse) | Recall@100 | MRR@10 | chosen by the folds: BM25 k1, b; weights (BM25, "
             "dense) |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['system']} | {r['ndcg@10']:.4f} | {delta(r.get('vs_bundled'))} | "
              f"{r['recall@100']:.4f} | {r['mrr@10']:.4f} | {r['weights']} |" for r in rows]
    lines += ["", "- Δ: per-query nDCG@10 of the fine-tuned system minus the same system with the "
              "bundled model, 95% interval from 2,000 paired resamples of the queries.",
              f"- recipe per-fold dense scores: {json.dumps(record['fold_scores'])}",
              f"- training + scoring wall time per fold (s): {json.dumps(record['wall_s'])}",
              f"- negatives: {json.dumps(record['negatives'])}"]
    write_results(args.name, {"rows": rows, "crossval": record}, "\n".join(lines) + "\n",
                  folder=args.out)
    print("\n".join(lines))
    return 0


def chosen_text(res: dict) -> str:
    """The (BM25 parameters, weights) the folds chose, each distinct pair once."""
    pairs = sorted({(name, tuple(w)) for name, w in res["chosen"].values()})
    return "; ".join(f"{name} {w}" if len(w) > 1 else name for name, w in pairs)


def delta(d: dict | None) -> str:
    if not d:
        return "-"
    return (f"{d['delta']:+.4f} [{d['low']:+.4f}, {d['high']:+.4f}] "
            f"({d['better']} / {d['worse']})")


if __name__ == "__main__":
    sys.exit(main())
