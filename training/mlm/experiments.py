"""Controlled MLM experiments: the seed article's mask-ratio table on a real model, what NSP
adds, fill-mask accuracy of a model's heads on held-out sentences, and domain adaptation on a
BEIR set (MLM on its corpus before Siamese fine-tuning)."""

from __future__ import annotations

import json
import logging
import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from common import write_json_atomic

from .config import MlmConfig
from .pretrain import pretrain

log = logging.getLogger("bertscope.training")
RATIOS = (0.05, 0.15, 0.30, 0.50)


def mask_ratio_experiment(base: MlmConfig, out: str | Path,
                          ratios=RATIOS) -> list[dict[str, Any]]:
    """One run per masking share, identical otherwise (data, steps, seed, held-out draw)."""
    out = Path(out)
    rows = []
    for ratio in ratios:
        folder = out / f"mask-{round(ratio * 100):02d}"
        result = _run_or_read(replace(base, mlm_probability=ratio, out=str(folder)))
        after = result["after"]
        own = after.get("at_train_probability", after)
        rows.append({"ratio": ratio, "steps": result["steps"], "train_loss": result["train_loss"],
                     "eval15": _scores(after), "eval_own": _scores(own),
                     "wall_s": result["wall_s"]})
        write_json_atomic(out / "mask_ratio.json", {"rows": rows})
    return rows


def heads_accuracy(model: str, eval_file: str, *, text_field: str = "sentence1",
                   max_eval: int = 1000, fresh: bool = False, max_length: int = 128) -> dict:
    """Masked-token top-1/top-5 (15 %, fixed draw) of `model`'s heads on the texts of
    `eval_file` (one sequence per text); `fresh` scores an untrained head instead."""
    from encoder import load_encoder
    from encoder.fill_mask import heads_folder

    from .examples import chunk_documents, mlm_examples
    from .metrics import masked_token_scores
    from .model import build_pretrainer
    from .texts import read_documents

    texts = read_documents(eval_file, text_field).texts[:max_eval]  # before the model loads
    enc = load_encoder(model, backend="torch")  # runs the torch transformer, not an export
    tok = enc.tokenizer
    examples = mlm_examples(tok, texts, chunk_documents(tok, texts, max_length), max_length)
    pretrainer = build_pretrainer(enc.transformer, None if fresh else heads_folder(enc))
    started = time.perf_counter()
    scores = masked_token_scores(pretrainer, tok, examples)
    return {"model": model, "heads": "fresh" if fresh else str(heads_folder(enc)),
            "eval": eval_file, "texts": len(texts), **_scores(scores),
            "wall_s": time.perf_counter() - started}


def nsp_experiment(base: MlmConfig, out: str | Path, sts_dev: str | None) -> list[dict]:
    """MLM alone vs MLM + NSP, same budget: held-out MLM, NSP accuracy, and the STS-B dev
    Spearman of each resulting encoder (mean pooling, as it is)."""
    from ..sts import evaluate_sts, load_sts

    out = Path(out)
    dev = load_sts(sts_dev) if sts_dev else None
    rows = []
    for nsp in (False, True):
        folder = out / ("mlm-nsp" if nsp else "mlm-only")
        result = _run_or_read(replace(base, nsp=nsp, out=str(folder)))
        row = {"nsp": nsp, "steps": result["steps"], "after": _scores(result["after"]),
               "nsp_accuracy": (result["after"].get("nsp") or {}).get("accuracy"),
               "nsp_before": (result["before"].get("nsp") or {}).get("accuracy"),
               "wall_s": result["wall_s"]}
        if dev is not None:
            from encoder import load_encoder

            model = load_encoder(folder, backend="torch").model
            row["sts_dev_spearman"] = evaluate_sts(model, dev).spearman
        rows.append(row)
        write_json_atomic(out / "nsp.json", {"rows": rows})
    return rows


def split_queries(qrels: dict[str, dict[str, int]], share: float = 0.8,
                  seed: int = 42) -> tuple[list[str], list[str]]:
    """Judged query ids split into (train, held-out) with a fixed seed."""
    ids = sorted(qrels)
    random.Random(seed).shuffle(ids)
    cut = round(share * len(ids))
    return ids[:cut], ids[cut:]


def domain_experiment(beir: str | Path, out: str | Path, *, model: str = "minilm",
                      mlm: MlmConfig | None = None, split: str = "train", seed: int = 42,
                      max_length: int = 128, epochs: float = 1.0) -> list[dict]:
    """nDCG@10 on held-out queries for: `model`; `model` fine-tuned (MNRL) on the other 80 %
    of the queries' (query, positive abstract) pairs; `model` + MLM on the corpus + the same
    fine-tuning."""
    from encoder import load_encoder
    from metrics import load_beir

    from ..config import FitConfig, Stage
    from ..evaluate import evaluate_beir
    from ..fit import fit

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    corpus, queries, qrels = load_beir(beir, split)
    train_q, held_q = split_queries(qrels, seed=seed)
    held = _held_out_folder(beir, out / "beir-heldout", {q: qrels[q] for q in held_q})
    pairs = out / "train_pairs.jsonl"
    with pairs.open("w", encoding="utf-8") as f:
        for q in train_q:
            for doc, rel in qrels[q].items():
                if rel > 0 and doc in corpus:
                    d = corpus[doc]
                    f.write(json.dumps({"sentence1": queries[q],
                                        "sentence2": f"{d['title']} {d['text']}".strip(),
                                        "score": 1}) + "\n")
    results_file = out / "domain.json"
    rows = json.loads(results_file.read_text())["rows"] if results_file.is_file() else []
    done = {r["name"] for r in rows}

    def score(name: str, folder: str, wall: float) -> None:
        enc = load_encoder(folder)
        enc.max_length = max_length  # both engines: encode runs the fast one
        started = time.perf_counter()
        ir = evaluate_beir(enc, held, "heldout")
        rows.append({"name": name, "model": folder, **ir, "train_wall_s": wall,
                     "eval_wall_s": time.perf_counter() - started,
                     "train_queries": len(train_q), "heldout_queries": len(held_q)})
        write_json_atomic(results_file, {"rows": rows})

    def finetune(source: str, folder: Path) -> float:
        if (folder / "metrics.json").is_file():
            return json.loads((folder / "metrics.json").read_text())["wall_s"]
        cfg = FitConfig(model=source, stages=(Stage((str(pairs),), "mnrl", epochs),),
                        out=str(folder), max_seq_length=max_length, seed=seed, eval_steps=10**6,
                        show_progress=False)
        return fit(cfg).metrics["wall_s"]

    if model not in done:
        score(model, model, 0.0)
    if "fine-tuned" not in done:
        score("fine-tuned", str(out / "ft"), finetune(model, out / "ft"))
    if "mlm + fine-tuned" not in done:
        cfg = mlm or MlmConfig(model=model, corpus=(str(Path(beir) / "corpus.jsonl"),), out="")
        cfg = replace(cfg, model=model, out=str(out / "mlm"), seed=seed)
        mlm_wall = _run_or_read(cfg)["wall_s"]
        ft_wall = finetune(str(out / "mlm"), out / "mlm-ft")
        score("mlm + fine-tuned", str(out / "mlm-ft"), mlm_wall + ft_wall)
    return rows


def _held_out_folder(beir, folder: Path, qrels: dict[str, dict[str, int]]) -> Path:
    """A BEIR folder with the same corpus and queries and only the held-out judgements."""
    beir = Path(beir).resolve()
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    for name in ("corpus.jsonl", "queries.jsonl"):
        link = folder / name
        if not link.exists():
            link.symlink_to(beir / name)
    with (folder / "qrels" / "heldout.tsv").open("w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for q, docs in sorted(qrels.items()):
            for d, rel in docs.items():
                f.write(f"{q}\t{d}\t{rel}\n")
    return folder


def _run_or_read(config: MlmConfig) -> dict[str, Any]:
    """The metrics of a finished run in `config.out`, training it first where needed."""
    metrics = Path(config.out) / "metrics.json"
    if metrics.is_file():
        return json.loads(metrics.read_text(encoding="utf-8"))
    resume = (Path(config.out) / "run.json").is_file()
    return pretrain(config, resume=resume).metrics


def _scores(s: dict[str, Any]) -> dict[str, Any]:
    return {k: s[k] for k in ("top1", "top5", "loss", "perplexity", "masked_tokens") if k in s}
