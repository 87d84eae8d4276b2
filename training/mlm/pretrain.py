"""`pretrain`: continue BERT's masked-language-model (+ NSP) pretraining on a corpus.

Reads the corpus, holds out documents (or reads `eval_corpus`), scores the model's heads before
training, trains with transformers' `Trainer` (checkpoints for `--resume`), scores again, and
writes a folder that `load_encoder` reads as an encoder and that carries the heads
(`mlm_heads.safetensors`), with `metrics.json`, `training_log.jsonl`, `curve.png` and a card.
"""

from __future__ import annotations

import logging
import math
import random
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from transformers import Trainer, TrainerCallback, TrainingArguments, set_seed

from common import write_json_atomic
from encoder.heads import bundled_heads_dir, read_meta, save_heads

from ..callbacks import JsonlLogCallback, job_callbacks
from ..checkpoints import atomic, resume_point
from ..errors import TrainingError
from ..report import read_log
from ..run_folder import RUN_FILE, RUN_FORMAT, prepare_out, read_run, stage_dir
from .collator import MlmCollator
from .config import MlmConfig
from .examples import chunk_documents, mlm_examples, nsp_examples
from .guards import check_eval_apart, check_masking, check_something_held_out
from .metrics import masked_token_scores, next_sentence_accuracy
from .model import build_pretrainer
from .report import mlm_card, plot_mlm_curve
from .texts import Documents, read_documents

log = logging.getLogger("bertscope.training")


@dataclass
class PretrainResult:
    out: Path
    metrics: dict[str, Any]


@dataclass
class PreparedData:
    train: list[dict]
    eval_mlm: list[dict]
    eval_nsp: list[dict]
    sources: list[Documents]


def pretrain(config: MlmConfig, *, resume: bool = False,
             callbacks: Sequence[TrainerCallback] = ()) -> PretrainResult:
    """Train per `config`; `resume` continues an interrupted run in `config.out`."""
    check_config(config)
    if not config.corpus:
        raise TrainingError("no corpus: pass --corpus FILE")
    check_eval_apart(config)
    sources = [read_documents(p, config.text_field) for p in config.corpus]
    held = read_documents(config.eval_corpus, config.text_field) if config.eval_corpus else None
    return pretrain_documents(config, sources, held, resume=resume, callbacks=callbacks)


def pretrain_documents(config: MlmConfig, sources: list[Documents], held: Documents | None, *,
                       resume: bool = False, callbacks: Sequence[TrainerCallback] = (),
                       save_model: bool = True, heads_meta: dict | None = None
                       ) -> PretrainResult:
    """`pretrain` on documents already read. `save_model=False` writes the heads (with the
    pooler, which NSP trains) but not the encoder: for a bundled model whose weights stay."""
    check_something_held_out(config, sources, held)
    for d in [*sources, *([held] if held else [])]:
        log.info("corpus: %s", d.summary())
        for line in d.skipped_lines() if d.skipped or d.duplicates else ():
            log.warning(line)  # as the indexer reports them: file:line: reason, then counts
    out = prepare_out(config.out, config.identity(), resume=resume)
    resume = (out / RUN_FILE).is_file()  # False where a run that never trained was cleared
    run = read_run(out) if resume else {
        "format": RUN_FORMAT, "kind": "mlm", "identity": config.identity(),
        "config": config.to_dict(), "started_at": _now(), "finished": False,
    }
    from encoder import load_encoder  # after the checks: loading a model takes a while

    encoder = load_encoder(config.model, backend="torch")  # trains the torch model
    heads_meta = dict(heads_meta or {})
    if not save_model:  # heads kept apart from the model: remember which weights they fit
        heads_meta["fingerprint"] = encoder.fingerprint
    st_model = encoder.model
    st_model.max_seq_length = min(config.max_length, st_model.max_seq_length)
    tokenizer = st_model.tokenizer
    heads_from = None if not save_model else _heads_source(config.model)
    model = build_pretrainer(st_model[0].auto_model, heads_from,
                             head_only=config.head_only, nsp=config.nsp)
    run.setdefault("heads_from", str(heads_from) if heads_from else "fresh")
    data = prepare_data(tokenizer, sources, held, config)
    check_masking(tokenizer, data.train, data.eval_mlm, config)
    write_json_atomic(out / RUN_FILE, run)  # marks the run once it can train
    return train(config, st_model, model, data, out, run, resume, callbacks,
                 save_model=save_model, heads_meta=heads_meta)


def prepare_data(tokenizer, sources: list[Documents], held: Documents | None,
                 config: MlmConfig) -> PreparedData:
    texts = [t for d in sources for t in d.texts]
    rng = random.Random(config.seed)
    order = list(range(len(texts)))
    rng.shuffle(order)
    if config.max_docs is not None:
        order = order[: config.max_docs]
    if held is None:
        n_eval = max(1, round(config.eval_fraction * len(order))) if len(order) > 1 else 0
        eval_texts = [texts[i] for i in order[:n_eval]]
        train_texts = [texts[i] for i in order[n_eval:]]
    else:
        eval_texts, train_texts = held.texts, [texts[i] for i in order]
    if not train_texts:
        raise TrainingError("no training documents left after holding out the eval share")
    train_chunks = chunk_documents(tokenizer, train_texts, config.max_length)
    eval_chunks = chunk_documents(tokenizer, eval_texts, config.max_length)
    rng.shuffle(eval_chunks)
    if config.nsp:
        train = nsp_examples(tokenizer, train_texts, train_chunks, config.max_length, config.seed,
                             words=config.whole_word)
        if not train:
            raise TrainingError("--nsp needs documents of two or more sentences; none found")
    else:
        train = mlm_examples(tokenizer, train_texts, train_chunks, config.max_length,
                             words=config.whole_word)
    eval_mlm = mlm_examples(tokenizer, eval_texts, eval_chunks[: config.max_eval],
                            config.max_length, words=config.whole_word)
    eval_nsp = nsp_examples(tokenizer, eval_texts, eval_chunks, config.max_length,
                            config.seed + 1)[: config.max_eval] if config.nsp else []
    log.info("examples: %d for training%s, %d held-out sequences%s", len(train),
             " (NSP pairs)" if config.nsp else "", len(eval_mlm),
             f", {len(eval_nsp)} held-out pairs" if config.nsp else "")
    return PreparedData(train, eval_mlm, eval_nsp, sources)


def evaluate(model, tokenizer, data: PreparedData, config: MlmConfig) -> dict[str, Any]:
    scores: dict[str, Any] = masked_token_scores(
        model, tokenizer, data.eval_mlm, probability=0.15, whole_word=config.whole_word,
        batch_size=config.batch_size)
    if config.mlm_probability != 0.15:  # also at the share it was trained with
        scores["at_train_probability"] = masked_token_scores(
            model, tokenizer, data.eval_mlm, probability=config.mlm_probability,
            whole_word=config.whole_word, batch_size=config.batch_size)
    if config.nsp:
        scores["nsp"] = next_sentence_accuracy(model, tokenizer, data.eval_nsp,
                                               batch_size=config.batch_size)
    return scores


def train(config: MlmConfig, st_model, model, data: PreparedData, out: Path, run: dict,
          resume: bool, callbacks, *, save_model: bool, heads_meta: dict) -> PretrainResult:
    tokenizer = st_model.tokenizer
    set_seed(config.seed)
    if "before" not in run:
        run["before"] = evaluate(model, tokenizer, data, config)
        write_json_atomic(out / RUN_FILE, run)
    log.info("held-out before: %s", _line(run["before"]))
    args = TrainingArguments(
        output_dir=str(stage_dir(out, 0)),  # one stage, laid out as `fit`'s
        num_train_epochs=config.epochs,
        max_steps=config.max_steps or -1,
        per_device_train_batch_size=config.batch_size,
        learning_rate=config.lr,
        warmup_steps=config.warmup_ratio,  # a float below 1 is a fraction of all steps
        lr_scheduler_type="linear",
        weight_decay=config.weight_decay,
        seed=config.seed,
        data_seed=config.seed,
        save_strategy="steps",
        save_steps=config.save_steps,
        save_total_limit=1,
        logging_steps=config.logging_steps,
        report_to="none",
        use_cpu=True,
        dataloader_num_workers=0,
        remove_unused_columns=False,
        disable_tqdm=not config.show_progress,
    )
    trainer = atomic(Trainer)(
        model=model, args=args, train_dataset=data.train,
        data_collator=MlmCollator(tokenizer, config.mlm_probability,
                                  whole_word=config.whole_word, seed=config.seed),
        callbacks=[JsonlLogCallback(out / "training_log.jsonl", 0), *job_callbacks(),
                   *callbacks],
    )
    checkpoint = resume_point(stage_dir(out, 0)) if resume else None  # partial ones removed
    started = time.perf_counter()
    output = trainer.train(resume_from_checkpoint=checkpoint)
    wall = time.perf_counter() - started
    after = evaluate(model, tokenizer, data, config)
    log.info("held-out after: %s", _line(after))
    if save_model:
        st_model.save(str(out), create_model_card=False)  # the encoder, as load_encoder reads it
    metrics = {
        "model": config.model,
        "mode": "head-only" if config.head_only else "full",
        "mlm_probability": config.mlm_probability,
        "whole_word": config.whole_word,
        "nsp": config.nsp,
        "corpus": [d.report() for d in data.sources],
        "train_examples": len(data.train),
        "eval_sequences": len(data.eval_mlm),
        "eval": {"source": config.eval_corpus or f"{config.eval_fraction:.0%} of the documents",
                 "probability": 0.15},
        "heads_from": run.get("heads_from", "fresh"),
        "steps": trainer.state.global_step,
        "train_loss": float(output.training_loss),
        "before": run["before"],
        "after": after,
        "resumed_from": Path(checkpoint).name if checkpoint else None,
        "wall_s": wall,
        "started_at": run["started_at"],
        "finished_at": _now(),
    }
    save_heads(out, model.cls, {"mlm": True, "nsp": config.nsp, "made_by": "BERTScope",
                                "base_model": config.model, "mode": metrics["mode"],
                                "after": after, **heads_meta},
               pooler=None if save_model or not config.nsp else model.bert.pooler)
    write_json_atomic(out / "metrics.json", metrics)
    plot_mlm_curve(read_log(out / "training_log.jsonl"), out / "curve.png",
                   title=f"{config.model}: MLM{' + NSP' if config.nsp else ''} "
                         f"({metrics['mode']})")
    (out / "README.md").write_text(mlm_card(metrics, config.to_dict()), encoding="utf-8")
    if not config.keep_checkpoints:
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
    run["finished"] = True
    write_json_atomic(out / RUN_FILE, run)
    return PretrainResult(out, metrics)


def check_config(config: MlmConfig) -> None:
    checks = [
        ("--mlm-probability", config.mlm_probability, 0 < config.mlm_probability < 1, "in (0, 1)"),
        ("--batch-size", config.batch_size, config.batch_size >= 1, ">= 1"),
        ("--epochs", config.epochs, 0 < config.epochs < math.inf, "finite, > 0"),
        ("--max-steps", config.max_steps, config.max_steps is None or config.max_steps >= 1,
         ">= 1"),
        ("--lr", config.learning_rate,
         config.learning_rate is None or 0 < config.learning_rate < math.inf, "finite, > 0"),
        ("--max-length", config.max_length, config.max_length >= 8, ">= 8"),
        ("--eval-fraction", config.eval_fraction, 0 < config.eval_fraction < 1, "in (0, 1)"),
        ("--warmup", config.warmup_ratio, 0 <= config.warmup_ratio < 1, "in [0, 1)"),
    ]
    for flag, value, ok, rule in checks:
        if not ok:
            raise TrainingError(f"{flag} must be {rule}, got {value}")


def _heads_source(model: str) -> Path | None:
    """Where the heads to continue from are: a model folder that carries heads, or BERTScope's
    cached heads of a bundled model; None: fresh heads."""
    from encoder import BUNDLED

    if model in BUNDLED:
        folder = bundled_heads_dir(model)
        return folder if read_meta(folder) is not None else None
    path = Path(model).expanduser()
    return path if path.is_dir() else None


def _line(scores: dict[str, Any]) -> str:
    text = (f"top-1 {scores.get('top1', 0):.3f}, top-5 {scores.get('top5', 0):.3f}, "
            f"perplexity {scores.get('perplexity', float('nan')):.1f} "
            f"({scores.get('masked_tokens', 0)} masked tokens)")
    if "nsp" in scores:
        text += f", NSP accuracy {scores['nsp'].get('accuracy', 0):.3f}"
    return text


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
