"""The `scifact` recipe's fold models in the product's own search: one chunked index per fold
model and BM25 setting, scored on the train queries that model did not train on.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.scifact_chunked --cv RUNS/scifact-cv-256 \
        --fold 0 --bm25 0.6,0.75 --bm25 1.5,0.75

bench/scifact_cv.py scores whole documents cut at the recipe's max length; an index cuts each
document (title first) into chunks of at most the model's max length and scores a document by
its best chunk, dense and BM25 alike. BM25's k1 and b are fixed at build, so every (fold, k1, b)
is its own `build_index` (cached under $BERTSCOPE_HOME/bench; each re-encodes the corpus).
Beside each, the same queries over whole documents (the fold's cv_run.json and BM25 over whole
documents, fused the same way), so the two can be compared on the same queries.
Writes NAME.{md,json} to --out (default bench/results; --name, default scifact_chunked).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.kit.benchkit import RESULTS, data_dir, write_results
from bench.kit.fusion_cv import fuse
from bench.kit.scifact import bm25_grid, get_index, run_of
from common import bertscope_home
from indexer import Bm25Params, SemanticIndex
from indexer.fusion import DEFAULT_FUSION, DEFAULT_WEIGHTS
from metrics import evaluate_run, load_beir


def fold_index(cv_dir: Path, fold: int, params: Bm25Params, corpus: dict) -> SemanticIndex:
    """The chunked SciFact index of fold `fold`'s model with BM25 `params`, built when absent."""
    name = f"scifact-{cv_dir.name}-fold{fold}-k1{params.k1}-b{params.b}"
    index, seconds = get_index(str(cv_dir / f"fold-{fold}"), corpus, bertscope_home() / "bench",
                               name=name, bm25=params)
    print(f"fold {fold}, {params}: {seconds:.0f} s to build (encode)", flush=True)
    return index


def parse_params(text: str) -> Bm25Params:
    k1, b = (float(x) for x in text.split(","))
    return Bm25Params(k1, b)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cv", required=True, help="output folder of the scifact recipe")
    p.add_argument("--fold", type=int, action="append", required=True, help="fold model (repeat)")
    p.add_argument("--bm25", type=parse_params, action="append", required=True,
                   metavar="K1,B", help="BM25 parameters (repeat)")
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--name", default="scifact_chunked", help="result files' name")
    args = p.parse_args()

    cv_dir = Path(args.cv).expanduser().resolve()
    corpus, queries, qrels = load_beir(data_dir() / "scifact", "train")
    fold_runs = {k: json.loads((cv_dir / f"fold-{k}" / "cv_run.json").read_text())
                 for k in args.fold}  # each fold model's run over its held-out queries
    whole_dense = {q: docs for run in fold_runs.values() for q, docs in run.items() if q in qrels}
    qids = sorted(whole_dense)
    texts = [queries[q] for q in qids]
    judged = {q: qrels[q] for q in qids}
    whole_bm25 = bm25_grid(corpus, qids, texts, args.bm25)
    weights = DEFAULT_WEIGHTS[DEFAULT_FUSION]
    rows = []
    for params in args.bm25:
        chunked = {mode: {} for mode in ("dense", "lexical", "hybrid")}
        for k in args.fold:
            index = fold_index(cv_dir, k, params, corpus)
            mine = [q for q in qids if q in fold_runs[k]]
            for mode, run in chunked.items():
                run.update(run_of(index, mine, [queries[q] for q in mine], mode)[0])
        lexical = whole_bm25[params][0]
        whole = {"dense": whole_dense, "lexical": lexical,
                 "hybrid": {q: fuse([whole_dense, lexical], q, DEFAULT_FUSION, weights)
                            for q in qids}}
        for mode in ("dense", "lexical", "hybrid"):
            for docs, run in (("chunked index", chunked[mode]), ("whole documents", whole[mode])):
                rows.append({"bm25": params.to_dict(), "mode": mode, "documents": docs,
                             **evaluate_run(run, judged)})
                print(json.dumps(rows[-1]), flush=True)

    hybrid = f"hybrid = {DEFAULT_FUSION}, weights {weights} (the product's default)"
    lines = ["# SciFact train: the `scifact` fold models, chunked index against whole documents",
             "",
             f"{len(qids)} judged train queries of fold(s) {args.fold}, each searched with the "
             f"fold model that did not train on it; {hybrid}.", "",
             "| BM25 k1, b | mode | documents | nDCG@10 | Recall@100 | MRR@10 |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['bm25']['k1']}, {r['bm25']['b']} | {r['mode']} | {r['documents']} | "
              f"{r['ndcg@10']:.4f} | {r['recall@100']:.4f} | {r['mrr@10']:.4f} |" for r in rows]
    write_results(args.name, {"rows": rows, "folds": args.fold, "queries": len(qids)},
                  "\n".join(lines) + "\n", folder=args.out)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
