"""Retrieval quality on BEIR SciFact (shared train queries): BM25, dense and hybrid, one table.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/retrieval.py [--models minilm,e5-multilingual]
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
import time
from pathlib import Path

from benchkit import RESULTS, data_dir, write_results

from common import bertscope_home
from indexer import Document, SemanticIndex, build_index
from metrics import evaluate_run, load_beir

ANCHORS = "Published test-split anchors (BEIR): BM25 0.665, all-MiniLM-L6-v2 0.674, " \
          "BM25 + cross-encoder 0.688."


def get_index(model: str, corpus: dict, home: Path, backend: str | None = None, *,
              name: str | None = None, bm25=None) -> tuple[SemanticIndex, float]:
    """The SciFact index of `model` (on `backend`, else the library's default; BM25 `bm25`,
    else the default) at `home / name`, built when absent; build seconds are this run's, or the
    cached build's encode stage (its manifest)."""
    out = home / (name or (f"scifact-{model}-{backend}" if backend else f"scifact-{model}"))
    if (out / "manifest.json").exists():
        index = SemanticIndex.open(out)
        return index, float(index.manifest.get("build", {}).get("stages", {}).get("encode_s", 0))
    if backend:
        from encoder import load_encoder

        try:
            model = load_encoder(model, backend=backend)
        except TypeError:  # a library from before backends: it runs torch only
            if backend != "torch":
                raise
            model = load_encoder(model)
    docs = [Document(i, d["text"] or d["title"], d["title"]) for i, d in corpus.items()]
    start = time.perf_counter()
    last = [0.0]

    def progress(p):
        if p.stage == "encode" and time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            print(f"  {model}: {p.done}/{p.total} docs, {p.rate:.1f} docs/s", flush=True)

    index = build_index(docs, out, model=model, preset="flat", progress=progress, bm25=bm25)
    return index, time.perf_counter() - start


def bm25_documents(corpus: dict, qids: list[str], texts: list[str]):
    """BM25 over whole documents (title + text), no model: the classic BEIR baseline.
    (run, search seconds)."""
    from common.lexical import Bm25Params

    return bm25_grid(corpus, qids, texts, [Bm25Params()])[Bm25Params()]


def bm25_grid(corpus: dict, qids: list[str], texts: list[str], params: list) -> dict:
    """{Bm25Params: (BM25 top-100 run over whole documents, search seconds)}; tokenised once."""
    from common.lexical import LexicalIndex, tokenize

    ids = list(corpus)
    tokens = [tokenize(f"{corpus[i]['title']} {corpus[i]['text']}") for i in ids]
    out = {}
    for p in params:
        lexical = LexicalIndex.build(range(len(ids)), tokens, p)
        start = time.perf_counter()
        hits = lexical.search(texts, 100)
        seconds = time.perf_counter() - start
        out[p] = ({q: {ids[c]: s for c, s in h} for q, h in zip(qids, hits, strict=True)},
                  seconds)
    return out


def run_of(index: SemanticIndex, qids: list[str], texts: list[str], mode: str):
    start = time.perf_counter()
    results = index.search(texts, k=100, mode=mode)
    seconds = time.perf_counter() - start
    return {q: {h.doc_id: h.score for h in hits} for q, hits in zip(qids, results, strict=True)}, \
        seconds


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
