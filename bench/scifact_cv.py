"""The `scifact` recipe's cross-validated figures: dense, and hybrid with BM25.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/scifact_cv.py --cv ~/.cache/bertscope/runs/scifact

Every train query's dense list comes from the fold model that did not train on it
(`fold-K/cv_run.json`, written by `python -m training fit --config recipes/scifact.json`); BM25
is over whole documents (title + text). Fusion weights are chosen on the other folds' queries
(bench/fusion_cv.py), so no query picks the weights it is scored with. `--baseline minilm`
scores the bundled model the same way (whole documents truncated at 256 tokens), once, cached.
Writes bench/results/scifact_cv.md and .json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from benchkit import data_dir, machine  # noqa: E402
from fusion_cv import cross_validate, simplex  # noqa: E402
from retrieval import bm25_documents  # noqa: E402

from common import bertscope_home  # noqa: E402
from metrics import evaluate_run, load_beir  # noqa: E402


def baseline_run(model: str, corpus: dict, queries: dict) -> dict:
    """The bundled model's exact top 100 over whole documents (cached: it encodes the corpus)."""
    from training.crossval import dense_run

    path = bertscope_home() / "bench" / f"scifact-train-whole-docs-{model}.json"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(dense_run(model, corpus, queries)))
    return json.loads(path.read_text())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cv", required=True, help="output folder of the scifact recipe")
    p.add_argument("--baseline", default="minilm", help="bundled model to compare, or ''")
    p.add_argument("--folds", type=int, default=5, help="folds for choosing fusion weights")
    p.add_argument("--out", default=REPO / "bench" / "results")
    args = p.parse_args()

    corpus, queries, qrels = load_beir(data_dir() / "scifact", "train")
    cv_dir = Path(args.cv).expanduser()
    record = json.loads((cv_dir / "crossval.json").read_text())
    tuned: dict = {}
    for k in range(record["folds"]):
        tuned.update(json.loads((cv_dir / f"fold-{k}" / "cv_run.json").read_text()))
    missing = sorted(set(queries) - set(tuned))
    if missing:
        raise SystemExit(f"{len(missing)} queries have no fold run yet (first: {missing[0]})")
    qids = sorted(queries)
    bm25, _ = bm25_documents(corpus, qids, [queries[q] for q in qids])
    dense = {"fine-tuned (CV)": tuned}
    if args.baseline:
        dense[f"bundled {args.baseline}"] = baseline_run(args.baseline, corpus, queries)

    rows = [{"system": "BM25 whole documents", **evaluate_run(bm25, qrels), "weights": "-"}]
    grid = simplex(2, 0.05)
    for name, run in dense.items():
        rows.append({"system": f"dense, {name}", **evaluate_run(run, qrels), "weights": "-"})
        for method in ("rrf", "minmax", "zscore"):
            equal = method == "rrf"
            res = cross_validate([bm25, run], qrels, method, [(0.5, 0.5)] if equal else grid,
                                 folds=args.folds, seed=15)
            ws = sorted({tuple(w) for w in res["weights"].values()})
            label = "RRF k=60" if equal else f"convex {method}, weight by CV"
            rows.append({"system": f"hybrid {label}(BM25, {name})", **res["scores"],
                         "weights": "; ".join(str(w) for w in ws)})
        for r in rows[-4:]:
            print(json.dumps(r), flush=True)

    lines = ["# SciFact train, cross-validated: the `scifact` recipe", "",
             f"`HF_HUB_OFFLINE=1 .venv/bin/python bench/scifact_cv.py --cv {args.cv}`", "",
             f"{record['folds']}-fold cross-validation over the {len(qids)} judged train queries "
             "(each query's dense list from the model that did not train on it; "
             f"recipe folds seed {record['seed']}); whole documents, 256-token limit.", "",
             "| system | nDCG@10 | Recall@100 | MRR@10 | fusion weights (BM25, dense) by fold |",
             "|---|---|---|---|---|"]
    lines += [f"| {r['system']} | {r['ndcg@10']:.4f} | {r['recall@100']:.4f} | "
              f"{r['mrr@10']:.4f} | {r['weights']} |" for r in rows]
    lines += ["", f"- recipe per-fold dense scores: {json.dumps(record['fold_scores'])}",
              f"- training + scoring wall time per fold (s): {json.dumps(record['wall_s'])}",
              f"- negatives: {json.dumps(record['negatives'])}",
              f"- machine: {machine()}; date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "scifact_cv.json").write_text(json.dumps({"rows": rows, "crossval": record}, indent=2))
    (out / "scifact_cv.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
