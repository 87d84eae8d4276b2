"""Cross-validated retrieval fine-tuning (the `scifact` recipe): the judged queries of one BEIR
split are dealt into folds; for each fold a model is trained on the other folds' queries (with
BM25-mined hard negatives) and searches the whole corpus for the held-out fold's queries. Every
query is thus scored by a model that never saw it; the pooled figure is the recipe's estimate.

Layout of `--out`: `crossval.json` (folds, settings, scores), `triplets/fold-K.jsonl`,
`fold-K/` (a normal training run, plus `cv_run.json`: the held-out queries' top 100, which
`bench/scifact_cv.py` fuses with BM25), and `final/` (trained on every query) when asked.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from pathlib import Path
from typing import Any

from common import write_json_atomic

from .beir_triplets import Bm25, assign_folds, document_text, mine_triplets, write_jsonl
from .config import FitConfig, Task
from .errors import TrainingError
from .recipe import CV_TRAIN, Recipe

log = logging.getLogger("bertscope.training")
CV_FILE = "crossval.json"
TOP_K = 100


def run_cross_validation(recipe: Recipe, *, resume: bool = False) -> str:
    """Train and score every fold (then the final model); returns a printable summary."""
    from metrics import evaluate_run, load_beir

    from .fit import fit

    cv = recipe.cross_validation
    assert cv is not None
    out = _prepare(Path(recipe.config.out), resume)
    corpus, queries, qrels = load_beir(cv.beir, cv.split)
    folds = assign_folds(list(queries), cv.folds, cv.seed)
    bm25 = Bm25(corpus)
    search_length = cv.search_max_length or recipe.config.max_seq_length
    record: dict[str, Any] = {
        "recipe": recipe.name, "beir": str(cv.beir), "split": cv.split, "folds": cv.folds,
        "seed": cv.seed, "negatives": {"per_query": cv.per_query, "depth": cv.depth,
                                       "skip": cv.skip},
        "queries": {str(k): sorted(q for q, f in folds.items() if f == k)
                    for k in range(cv.folds)},
        "train_max_length": recipe.config.max_seq_length,
        "max_length": search_length,  # what documents keep when searched (bench/scifact_cv.py)
        "fold_scores": {}, "wall_s": {},
    }
    if (out / CV_FILE).is_file():
        previous = json.loads((out / CV_FILE).read_text(encoding="utf-8"))
        if previous.get("max_length") != search_length:
            raise TrainingError(f"--out {out}: its folds searched documents cut at "
                                f"{previous.get('max_length')} tokens, this recipe at "
                                f"{search_length}; choose a new folder")
        record["fold_scores"], record["wall_s"] = previous["fold_scores"], previous["wall_s"]
    write_json_atomic(out / CV_FILE, record)  # marks the folder as this run's from the start
    runs: dict[str, dict[str, float]] = {}
    for k in range(cv.folds):
        held = record["queries"][str(k)]
        fold_out = out / f"fold-{k}"
        if not (fold_out / "cv_run.json").is_file():
            started = time.perf_counter()
            train_q = [q for q, f in folds.items() if f != k]
            triplets = _triplets(out / "triplets" / f"fold-{k}.jsonl", corpus, queries, qrels,
                                 train_q, bm25, cv, recipe.config.seed)
            if not (fold_out / "metrics.json").is_file():  # trained, not yet scored: score
                fit(_fold_config(recipe.config, triplets, fold_out),
                    resume=resume and (fold_out / "run.json").is_file())
            run = dense_run(fold_out, corpus, {q: queries[q] for q in held},
                            max_length=search_length)
            write_json_atomic(fold_out / "cv_run.json", run)
            record["fold_scores"][str(k)] = evaluate_run(run, {q: qrels[q] for q in held})
            record["wall_s"][str(k)] = time.perf_counter() - started
            write_json_atomic(out / CV_FILE, record)
        runs.update(json.loads((fold_out / "cv_run.json").read_text(encoding="utf-8")))
        log.info("fold %d: %s", k, record["fold_scores"][str(k)])
    record["pooled"] = evaluate_run(runs, {q: qrels[q] for q in runs})
    write_json_atomic(out / CV_FILE, record)
    if cv.final and not (out / "final" / "metrics.json").is_file():
        triplets = _triplets(out / "triplets" / "all.jsonl", corpus, queries, qrels,
                             list(queries), bm25, cv, recipe.config.seed)
        fit(_fold_config(recipe.config, triplets, out / "final"),
            resume=resume and (out / "final" / "run.json").is_file())
    p = record["pooled"]
    final = (f"\nthe model to ship, trained on every {cv.split} query: {out / 'final'}"
             if cv.final else "")
    return (f"{recipe.name}: {cv.folds}-fold cross-validated dense retrieval on "
            f"{len(runs)} {cv.split} queries: nDCG@10 {p['ndcg@10']:.4f}, Recall@100 "
            f"{p['recall@100']:.4f}, MRR@10 {p['mrr@10']:.4f} (per fold in {out / CV_FILE})"
            + final)


def dense_run(model: str | Path, corpus: dict[str, dict], queries: dict[str, str],
              *, batch_size: int = 32, max_length: int | None = None
              ) -> dict[str, dict[str, float]]:
    """Exact cosine top-100 of `queries` over every document of `corpus`, with `model`; texts cut
    at `max_length` tokens (default: the model's own limit)."""
    from encoder import load_encoder

    from .evaluate import search_run

    enc = load_encoder(model)
    if max_length is not None:
        enc.max_length = max_length  # both engines: encode runs the fast one
    doc_ids = list(corpus)
    docs = enc.encode([document_text(corpus[d]) for d in doc_ids], batch_size=batch_size,
                      prompt="passage", show_progress=True)
    qids = list(queries)
    qs = enc.encode([queries[q] for q in qids], batch_size=batch_size, prompt="query")
    return search_run(qs, docs, qids, doc_ids, k=TOP_K)


def _triplets(path: Path, corpus, queries, qrels, qids, bm25, cv, seed) -> str:
    if not path.is_file():
        rows = mine_triplets(corpus, queries, qrels, qids, bm25, per_query=cv.per_query,
                             depth=cv.depth, skip=cv.skip, seed=seed)
        write_jsonl(rows, path)
        log.info("%s: %d (query, relevant, BM25 negative) rows from %d queries", path, len(rows),
                 len(qids))
    return str(path)


def _fold_config(config: FitConfig, triplets: str, out: Path) -> FitConfig:
    """`config` with every `cv:train` reference replaced by this fold's triplets file."""

    def swap(files: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(triplets if f == CV_TRAIN else f for f in files)

    stages = tuple(
        dataclasses.replace(s, train=swap(s.train),
                            tasks=tuple(Task(swap(t.train), t.loss, t.max_rows) for t in s.tasks))
        for s in config.stages
    )
    return dataclasses.replace(config, stages=stages, out=str(out))


def _prepare(out: Path, resume: bool) -> Path:
    entries = [p.name for p in out.iterdir()] if out.is_dir() else []
    if entries and not (out / CV_FILE).is_file():
        raise TrainingError(f"--out {out} is not empty and holds no cross-validation run; "
                            "choose a new or empty folder")
    if (out / CV_FILE).is_file() and not resume:
        raise TrainingError(f"--out {out} already holds a cross-validation run; pass --resume "
                            "to continue it or choose a new folder")
    out.mkdir(parents=True, exist_ok=True)
    return out

