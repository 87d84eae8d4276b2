"""Should dense and BM25 chunk differently? One fold of the `scifact` recipe, in the product's
own search: the fold's model (trained at 128 tokens, as the recipe does) over two chunkings of
the corpus, and BM25 over each chunking and over whole documents; every dense run fused with
every BM25 run (z-score, even weights: the product's default hybrid).

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.scifact_two_chunkings [--fold 0] [--work DIR]

The fold's model is trained like the recipe's fold (`training.crossval`): the other folds'
queries, one BM25 hard negative per (query, relevant abstract), MNRL, the recipe's settings.
The 128-token index is built with that model (its own window); the 256-token one with the
same weights reading 256 tokens (the recipe's `search_max_length`). Scored on the fold's
held-out queries only (about 270: differences under ~0.02 are noise). Writes
scifact_two_chunkings.{md,json} to bench/results.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import time
from pathlib import Path

from bench.kit.benchkit import REPO, RESULTS, data_dir, write_results
from bench.kit.fusion_cv import fuse
from bench.kit.scifact import run_of
from common import bertscope_home
from indexer import ChunkingConfig, Document, build_index
from indexer.fusion import DEFAULT_FUSION, DEFAULT_WEIGHTS
from metrics import evaluate_run, load_beir


def fold_model(work: Path, fold: int, corpus, queries, qrels) -> Path:
    """The recipe's fold model: trained on the other folds' queries (cached in `work`)."""
    from training.beir_triplets import Bm25, assign_folds, mine_triplets, write_jsonl
    from training.fit import fit
    from training.recipe import load_recipe

    out = work / f"fold-{fold}"
    if (out / "metrics.json").is_file():
        return out
    recipe = load_recipe(REPO / "recipes" / "scifact.json", out=str(out), data=data_dir())
    cv = recipe.cross_validation
    folds = assign_folds(list(queries), cv.folds, cv.seed)
    train_q = [q for q, f in folds.items() if f != fold]
    rows = mine_triplets(corpus, queries, qrels, train_q, Bm25(corpus), per_query=cv.per_query,
                         depth=cv.depth, skip=cv.skip, seed=recipe.config.seed)
    triplets = write_jsonl(rows, work / f"triplets-{fold}.jsonl")
    stages = tuple(dataclasses.replace(s, train=(str(triplets),)) for s in recipe.config.stages)
    fit(dataclasses.replace(recipe.config, stages=stages, out=str(out), show_progress=False))
    return out


def reading(model: Path, tokens: int) -> Path:
    """A copy of `model` whose window is `tokens` (only sentence_bert_config.json differs)."""
    work = model.parent  # the bench's work folder
    copy = work / f"{model.name}-reads-{tokens}"
    if not copy.exists():
        shutil.copytree(model, copy, ignore=shutil.ignore_patterns("checkpoints"))
        data = json.loads((copy / "sentence_bert_config.json").read_text())
        data["max_seq_length"] = tokens
        (work / copy.name / "sentence_bert_config.json").write_text(json.dumps(data))
    return copy


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fold", type=int, default=0)
    p.add_argument("--work", default=str(bertscope_home("bench") / "scifact-two-chunkings"))
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--name", default="scifact_two_chunkings")
    args = p.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    corpus, queries, qrels = load_beir(data_dir() / "scifact", "train")
    started = time.perf_counter()
    model = fold_model(work, args.fold, corpus, queries, qrels)
    train_s = time.perf_counter() - started
    from training.beir_triplets import assign_folds

    folds = assign_folds(list(queries), 3, 15)
    qids = sorted(q for q, f in folds.items() if f == args.fold and q in qrels)
    texts, judged = [queries[q] for q in qids], {q: qrels[q] for q in qids}
    docs = [Document(i, d["text"] or d["title"], d["title"]) for i, d in corpus.items()]
    runs, chunks, seconds = {}, {}, {}
    for tokens in (128, 256):
        out = work / f"index-fold{args.fold}-{tokens}"
        t0 = time.perf_counter()
        if not (out / "manifest.json").is_file():
            build_index(docs, out, model=str(reading(model, tokens)), preset="flat",
                        chunking=ChunkingConfig(chunk_tokens=tokens))
        from indexer import SemanticIndex

        index = SemanticIndex.open(out)
        seconds[tokens] = round(time.perf_counter() - t0)
        chunks[tokens] = index.stats().chunks
        for mode in ("dense", "lexical"):
            runs[f"{mode}, {tokens}-token chunks"] = run_of(index, qids, texts, mode)[0]
        print(f"{tokens}-token chunks: {chunks[tokens]} ({seconds[tokens]} s)", flush=True)
    from bench.kit.scifact import bm25_documents

    runs["lexical, whole documents"] = bm25_documents(corpus, qids, texts)[0]
    weights = DEFAULT_WEIGHTS[DEFAULT_FUSION]
    rows = [{"system": name, **evaluate_run(run, judged)} for name, run in runs.items()]
    for dense in (k for k in runs if k.startswith("dense")):
        for lexical in (k for k in runs if k.startswith("lexical")):
            fused = {q: fuse([runs[dense], runs[lexical]], q, DEFAULT_FUSION, weights)
                     for q in qids}
            rows.append({"system": f"hybrid: {dense} + BM25 {lexical.split(', ')[1]}",
                         **evaluate_run(fused, judged)})
    lines = ["# Should dense and BM25 chunk differently? SciFact, one fold of the `scifact` "
             "recipe", "",
             f"Fold {args.fold}: {len(qids)} held-out train queries, its model trained on the "
             f"other folds' (128 tokens, {train_s:.0f} s here, cached after); chunks: "
             f"{chunks[128]:,} at 128 tokens, {chunks[256]:,} at 256 (title in every chunk, 32 "
             f"tokens of overlap); hybrid = {DEFAULT_FUSION}, weights {weights}.", "",
             "| system | nDCG@10 | Recall@100 | MRR@10 |", "|---|---|---|---|"]
    lines += [f"| {r['system']} | {r['ndcg@10']:.4f} | {r['recall@100']:.4f} | "
              f"{r['mrr@10']:.4f} |" for r in rows]
    write_results(args.name, {"rows": rows, "fold": args.fold, "queries": len(qids),
                              "chunks": chunks, "index_s": seconds, "train_s": train_s},
                  "\n".join(lines) + "\n", folder=args.out)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
