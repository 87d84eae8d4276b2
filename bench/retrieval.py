"""Retrieval quality on BEIR SciFact (shared train queries): BM25, dense and hybrid, one table.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.retrieval [--models minilm,e5-multilingual]
        [--backend onnx --name retrieval-onnx]

Indexes are built once (resumable) under $BERTSCOPE_HOME/bench/ (default ~/.cache/bertscope),
then searched with the library; scores come from metrics.ir (BEIR / pytrec_eval
definitions). Writes NAME.md and .json (--name, default retrieval) to --out (default
bench/results).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.kit.benchkit import RESULTS, data_dir, write_results
from bench.kit.scifact import bm25_documents, get_index, run_of
from common import bertscope_home
from metrics import evaluate_run, load_beir

ANCHORS = "Published test-split anchors (BEIR): BM25 0.665, all-MiniLM-L6-v2 0.674, " \
          "BM25 + cross-encoder 0.688."


def report(results: dict) -> str:
    """The markdown table of {"meta", "rows", "notes"}."""
    meta = results["meta"]
    lines = [f"# Retrieval quality: SciFact `{meta['split']}` ({meta['queries']} queries, "
             f"{meta['documents']} documents)", "",
             "| system | nDCG@10 | Recall@100 | MRR@10 | search s (all queries) | chunks | "
             "encode s |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['system']} | {r['ndcg@10']:.4f} | {r['recall@100']:.4f} | "
              f"{r['mrr@10']:.4f} | {r['search_s']} | {r['chunks']} | "
              f"{r['build_s'] if r['model'] != '-' else '-'} |" for r in results["rows"]]
    lines += ["", ANCHORS + " Those are on the test split; these figures are on "
              f"`{meta['split']}`, so they orient rather than compare.", ""]
    lines += [f"- {n}" for n in results["notes"]]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=None, help="data root (default $BERTSCOPE_DATA)")
    p.add_argument("--split", default="train")
    p.add_argument("--models", default="minilm,e5-multilingual")
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--backend", default=None, help="encoding backend for the dense index "
                   "(torch, onnx, ...; default: the library's); indexes kept per backend")
    p.add_argument("--name", default="retrieval", help="report file name (NAME.md, NAME.json)")
    args = p.parse_args()

    data = Path(args.data) if args.data else data_dir()
    corpus, queries, qrels = load_beir(data / "scifact", args.split)
    qids = list(queries)
    texts = [queries[q] for q in qids]
    home = bertscope_home() / "bench"
    rows, notes = [], []
    run, seconds = bm25_documents(corpus, qids, texts)
    rows.append({"system": "BM25 whole documents (bm25s, stemmed, no model)", "mode": "lexical",
                 "model": "-", **evaluate_run(run, qrels), "search_s": round(seconds, 2),
                 "chunks": len(corpus), "build_s": 0.0})
    print(json.dumps(rows[-1]), flush=True)
    lexical_done = False
    for model in filter(None, args.models.split(",")):
        try:
            index, build_s = get_index(model, corpus, home, args.backend)
        except Exception as exc:  # a model that cannot load here is reported, not fatal
            notes.append(f"{model}: not measured ({type(exc).__name__}: {exc})")
            print(notes[-1], flush=True)
            continue
        st = index.stats()
        modes = ["dense", "hybrid"] if lexical_done else ["lexical", "dense", "hybrid"]
        runs = index.manifest["encoder"].get("backend", "torch (no backend recorded)")
        notes.append(f"{model}: index vectors made by backend {runs}")
        tag = f"{model} [{args.backend}]" if args.backend else model
        for mode in modes:
            run, seconds = run_of(index, qids, texts, mode)
            scores = evaluate_run(run, qrels)
            name = {"lexical": "BM25 over the index's chunks", "dense": f"dense {tag}",
                    "hybrid": f"hybrid RRF(BM25, {tag})"}[mode]
            rows.append({"system": name, "mode": mode, "model": model, **scores,
                         "search_s": round(seconds, 2), "chunks": st.chunks,
                         "build_s": round(build_s, 1)})
            print(json.dumps(rows[-1]), flush=True)
        lexical_done = True

    meta = {"dataset": "BEIR SciFact", "split": args.split, "queries": len(qids),
            "documents": len(corpus), "k": 100, "chunking": "model max_length windows, overlap 32,"
            " title prepended; a document scores by its best chunk",
            "backend": args.backend or "library default"}
    results = {"meta": meta, "rows": rows, "notes": notes}
    write_results(args.name, results, report(results), folder=args.out)
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
