"""`evaluate_model`: a bundled or trained encoder, as it is, on STS files and/or a BEIR folder.

STS: Spearman/Pearson x 100 of cosine vs gold (see `sts.py`). BEIR: exact cosine search of the
queries (model prompt "query") over the corpus (prompt "passage"), top 100, scored with
`metrics`, the same code as the indexer's `eval`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import TrainingError
from .sts import StsResult, check_prompt, evaluate_sts, load_sts

TOP_K = 100
log = logging.getLogger("bertscope.training")


@dataclass
class EvalResults:
    model: str
    sts: list[StsResult] = field(default_factory=list)
    beir: dict | None = None
    backend: str = "torch"  # what encoded (`enc.backend`)
    fidelity: float | None = 1.0  # its min cosine to torch fp32, measured at export

    @property
    def label(self) -> str:
        """The model, with the backend where it is not torch."""
        return self.model if self.backend == "torch" else f"{self.model} [{self.backend}]"

    def lines(self) -> list[str]:
        out = []
        for r in self.sts:
            out.append(
                f"{self.label}  {r.path}  ({r.pairs} {r.kind} pairs): "
                f"Spearman {r.spearman:.2f}  Pearson {r.pearson:.2f}"
            )
        if self.beir:
            b = self.beir
            out.append(
                f"{self.label}  {b['folder']} [{b['split']}] ({b['queries']} queries, "
                f"{b['documents']} docs): nDCG@10 {b['ndcg@10']:.4f}  "
                f"Recall@100 {b['recall@100']:.4f}  MRR@10 {b['mrr@10']:.4f}"
            )
        return out

    def to_dict(self) -> dict:
        return {"model": self.model, "backend": self.backend, "fidelity": self.fidelity,
                "sts": [r.to_dict() for r in self.sts], "beir": self.beir}


def evaluate_model(
    model: str | Path,
    *,
    sts: Sequence[str] = (),
    beir: str | Path | None = None,
    split: str = "test",
    prompt: str | None = "query",
    batch_size: int = 64,
    progress: bool = False,
    backend: str = "auto",
) -> EvalResults:
    """Score `model` (bundled name or folder) on each STS file and on the BEIR folder's `split`;
    `progress` shows a tqdm bar for every encoding pass (they run for minutes on large sets).
    `backend`: what encodes (`auto`: the fastest whose export passed the fidelity gate, or a
    name of `encoder.BACKENDS`); the results name the one that ran."""
    check_prompt(prompt)
    backend = _check_backend(backend)
    if isinstance(sts, (str, Path)):
        raise TrainingError(f"sts must be a list of files, not one: use sts=[{str(sts)!r}]")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise TrainingError(f"--batch-size must be >= 1, got {batch_size!r}")
    data = [load_sts(path, role="--sts file") for path in sts]  # fail fast, before the model loads
    loaded = _load_beir(beir, split) if beir is not None else None
    enc = _load(model, backend)
    results = EvalResults(model=str(model), backend=enc.backend, fidelity=enc.fidelity)
    for d in data:
        if progress:
            log.info("scoring %s (%d pairs)", d.path, len(d))
        results.sts.append(
            evaluate_sts(enc, d, prompt=prompt, batch_size=batch_size, show_progress=progress)
        )
    if beir is not None:
        results.beir = evaluate_beir(enc, beir, split, batch_size=batch_size, loaded=loaded,
                                     progress=progress)
    return results


def _load_beir(folder, split: str):
    from metrics import load_beir

    try:
        corpus, queries, qrels = load_beir(folder, split)
    except (OSError, ValueError) as exc:  # missing files, malformed lines: the message says which
        raise TrainingError(str(exc)) from exc
    if not queries or not corpus:
        raise TrainingError(f"{folder}: no judged queries for split {split!r}, or an empty corpus")
    return corpus, queries, qrels


def evaluate_beir(enc, folder: str | Path, split: str, *, batch_size: int = 64,
                  loaded=None, progress: bool = False) -> dict:
    """nDCG@10, Recall@100, MRR@10 of exact cosine search with `enc` (an `encoder.Encoder`)."""
    from metrics import evaluate_run

    corpus, queries, qrels = loaded or _load_beir(folder, split)
    doc_ids = list(corpus)
    texts = [f"{d['title']} {d['text']}".strip() or "(empty)" for d in corpus.values()]
    query_ids = list(queries)
    if progress:
        log.info("encoding %d documents, then %d queries", len(texts), len(query_ids))
    docs = enc.encode(texts, batch_size=batch_size, prompt="passage", show_progress=progress)
    qs = enc.encode(
        [queries[q] for q in query_ids], batch_size=batch_size, prompt="query",
        show_progress=progress,
    )  # docs: (D, dim), qs: (Q, dim), unit rows
    run = search_run(qs, docs, query_ids, doc_ids, k=TOP_K)
    scores = evaluate_run(run, qrels)
    return {
        "folder": str(folder),
        "split": split,
        "queries": len(query_ids),
        "documents": len(doc_ids),
        **scores,
    }


def search_run(
    queries: np.ndarray,
    docs: np.ndarray,
    query_ids: Sequence[str],
    doc_ids: Sequence[str],
    *,
    k: int = TOP_K,
) -> dict[str, dict[str, float]]:
    """Exact inner-product top-k as a run {qid: {docid: score}} (cosine for unit-norm rows)."""
    k = min(k, len(doc_ids))
    scores = queries @ docs.T  # (Q, D)
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]  # (Q, k), unordered
    return {
        qid: {doc_ids[j]: float(scores[i, j]) for j in top[i]} for i, qid in enumerate(query_ids)
    }


def _check_backend(backend) -> str:
    from encoder import check_backend

    try:
        return check_backend(backend)
    except ValueError as exc:
        raise TrainingError(f"{exc} (on the command line: --backend NAME)") from exc


def _load(model: str | Path, backend: str):
    from encoder import EncoderNotFoundError, load_encoder

    try:
        return load_encoder(model, backend=backend)
    except (EncoderNotFoundError, ValueError) as exc:  # None or a number: TypeError, as it is
        raise TrainingError(str(exc)) from exc
