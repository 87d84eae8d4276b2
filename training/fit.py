"""`fit`: train a Siamese Sentence-BERT in one or more stages with `SentenceTransformerTrainer`.

Everything a user can get wrong (loss names, data files, dev sets, output folder) is checked before
the model is built. Each stage evaluates the dev sets every `eval_steps` (several: their mean),
keeps the best checkpoint, optionally stops early, and can resume from its last checkpoint; report
sets are scored before training and after every stage but never pick anything. The final model
lands at the top of `out`.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sentence_transformers import (
    SentenceTransformer,
    SentenceTransformerTrainer,
    SentenceTransformerTrainingArguments,
)
from sentence_transformers.base.sampler import BatchSamplers
from transformers import EarlyStoppingCallback, TrainerCallback, set_seed

from common import write_json_atomic

from .callbacks import JsonlLogCallback, job_callbacks
from .checkpoints import atomic, resume_point
from .checks import check_config, fit_sets_apart
from .config import FitConfig
from .dev_sets import describe, dev_evaluator, load_sets, metric_key, score_sets
from .errors import TrainingError
from .finite import diverged, refusal
from .report import model_card, plot_curve, read_log
from .run_folder import RUN_FILE, RUN_FORMAT, prepare_out, read_run, stage_dir
from .siamese import build_siamese, freeze_word_embeddings
from .stage_data import PreparedStage, prepare_stage
from .sts import prompt_prefix

log = logging.getLogger("bertscope.training")


@dataclass
class FitResult:
    out: Path
    metrics: dict[str, Any]

    @property
    def dev_before(self) -> float | None:
        return (self.metrics.get("dev_before") or {}).get("spearman")

    @property
    def dev_after(self) -> float | None:
        return (self.metrics.get("dev_after") or {}).get("spearman")


def fit(
    config: FitConfig, *, resume: bool = False, callbacks: Sequence[TrainerCallback] = ()
) -> FitResult:
    """Train per `config`; `resume` continues an interrupted run in `config.out`.

    `callbacks` are extra `transformers.TrainerCallback`s added to every stage.
    """
    if not isinstance(config, FitConfig):
        raise TypeError(f"config must be a FitConfig, got {type(config).__name__}")
    check_config(config)  # every setting by the rule of settings.py, named by its flag
    if problem := fit_sets_apart(config):  # the CLIs refuse it; a library caller may mean it
        log.warning("%s", problem)
    stages = [prepare_stage(s, config, i) for i, s in enumerate(config.stages)]
    dev = load_sets(config.dev_sets, role="dev set")
    report = load_sets(config.report, role="report set")
    for role, sets in (("dev", dev), ("report", report)):
        for data in sets:
            log.info("%s: %s", role, data.summary())
    out = prepare_out(config.out, config.identity(), resume=resume)
    resume = (out / RUN_FILE).is_file()  # False where a run that never trained was cleared
    run = (
        read_run(out)
        if resume
        else {
            "format": RUN_FORMAT,
            "identity": config.identity(),
            "config": config.to_dict(),
            "started_at": _now(),
            "finished": False,
            "stages_done": [],
        }
    )
    model = _start_model(config, out, run)  # a model that fails to load leaves no run.json
    write_json_atomic(out / RUN_FILE, run)
    handler = _log_to(out / "train.log")
    try:
        return _train(config, stages, (dev, report), out, run, model, callbacks, resume)
    finally:
        logging.getLogger("bertscope").removeHandler(handler)
        handler.close()


def _start_model(config: FitConfig, out: Path, run: dict[str, Any]) -> SentenceTransformer:
    done = run["stages_done"]
    if done:  # resume after a finished stage: continue from its weights
        return SentenceTransformer(
            str(stage_dir(out, len(done) - 1) / "final"), device="cpu", local_files_only=True
        )
    return build_siamese(config.model, pooling=config.pooling, max_seq_length=config.max_seq_length)


def _train(config, stages, sets, out, run, model, callbacks, resume) -> FitResult:
    started = time.perf_counter()
    set_seed(config.seed)
    dev, report = sets
    done: list[dict[str, Any]] = run["stages_done"]
    if config.freeze_embeddings:
        freeze_word_embeddings(model)
    prefixes = (prompt_prefix(model, config.prompt), prompt_prefix(model, "passage"))
    selector = (dev_evaluator(dev, model, config.prompt), metric_key(dev)) if dev else None
    if (dev or report) and "dev_before" not in run:
        run["dev_before"] = score_sets(model, dev, prompt=config.prompt)
        run["report_before"] = score_sets(model, report, prompt=config.prompt)
        write_json_atomic(out / RUN_FILE, run)
        _log_scores("before training", run["dev_before"], run["report_before"])

    for index, prepared in enumerate(stages):
        if index < len(done):
            continue
        record = _run_stage(index, prepared, model, selector, config, prefixes, out, callbacks,
                            resume)
        record["dev_after"] = score_sets(model, dev, prompt=config.prompt)
        record["report_after"] = score_sets(model, report, prompt=config.prompt)
        _log_scores(f"after stage {index}", record["dev_after"], record["report_after"])
        if problem := diverged(model):  # never saved: nothing could load it by mistake
            raise TrainingError(refusal(problem, f"stage {index}",
                                        prepared.stage.learning_rate or config.learning_rate))
        model.save(str(stage_dir(out, index) / "final"), create_model_card=False)
        done.append(record)
        write_json_atomic(out / RUN_FILE, run)

    model.save(str(out), create_model_card=False)
    metrics = {
        "model": config.model,
        "pooling": config.pooling,
        "prompt_prefix": prefixes[0],
        "dev": describe(dev) or None,
        "report": describe(report) or None,
        "dev_before": run.get("dev_before"),
        "dev_after": done[-1].get("dev_after"),
        "report_before": run.get("report_before"),
        "report_after": done[-1].get("report_after"),
        "stages": done,
        "wall_s": sum(s["wall_s"] for s in done) if resume else time.perf_counter() - started,
        "started_at": run["started_at"],
        "finished_at": _now(),
        **{k: config.extra[k] for k in ("recipe",) if k in config.extra},
    }
    write_json_atomic(out / "metrics.json", metrics)
    write_json_atomic(
        out / "data_report.json",
        {
            "stages": [s["data"] for s in done],
            "dev": [d.report() for d in dev] or None,
            "report": [d.report() for d in report] or None,
        },
    )
    before = (metrics["dev_before"] or {}).get("spearman")
    plot_curve(
        read_log(out / "training_log.jsonl"),
        out / "curve.png",
        title=f"{config.model} ({config.pooling} pooling)",
        dev_before=before,
    )
    (out / "README.md").write_text(model_card(metrics, config.to_dict()), encoding="utf-8")
    if not config.keep_checkpoints:
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
    run["finished"] = True
    write_json_atomic(out / RUN_FILE, run)
    return FitResult(out, metrics)


def _run_stage(
    index: int,
    prepared: PreparedStage,
    model: SentenceTransformer,
    selector: tuple[Any, str] | None,  # (dev evaluator, the trainer metric it reports)
    config: FitConfig,
    prefixes: tuple[str, str],  # (query prompt, passage prompt)
    out: Path,
    callbacks,
    resume: bool,
) -> dict[str, Any]:
    stage = prepared.stage
    folder = stage_dir(out, index)
    datasets = {t.name: t.prefixed(*prefixes) for t in prepared.tasks}
    losses = {t.name: t.spec.build(model) for t in prepared.tasks}
    single = len(prepared.tasks) == 1
    log.info("stage %d: %s on %d rows for %g epochs", index, prepared.loss_names, prepared.rows,
             stage.epochs)
    batch_size = stage.batch_size or config.batch_size
    args = SentenceTransformerTrainingArguments(
        output_dir=str(folder),
        num_train_epochs=stage.epochs,
        per_device_train_batch_size=batch_size,
        per_device_eval_batch_size=batch_size,
        learning_rate=stage.learning_rate or config.learning_rate,
        warmup_steps=config.warmup_ratio,  # a float below 1 is a fraction of all steps
        lr_scheduler_type="linear",
        weight_decay=config.weight_decay,
        seed=config.seed,
        data_seed=config.seed,
        eval_strategy="steps" if selector else "no",
        eval_steps=config.eval_steps,
        save_strategy="steps",
        save_steps=config.eval_steps,
        save_total_limit=2,  # the last checkpoint (for --resume) and the best one
        load_best_model_at_end=selector is not None,
        metric_for_best_model=selector[1] if selector else None,
        greater_is_better=True,
        logging_steps=config.logging_steps,
        report_to="none",
        use_cpu=True,
        dataloader_num_workers=0,
        disable_tqdm=not config.show_progress,
        batch_sampler=BatchSamplers.NO_DUPLICATES
        if prepared.uses_mnrl
        else BatchSamplers.BATCH_SAMPLER,
    )
    extra = [JsonlLogCallback(out / "training_log.jsonl", index), *job_callbacks(), *callbacks]
    if selector and config.early_stopping_patience is not None:
        extra.append(EarlyStoppingCallback(early_stopping_patience=config.early_stopping_patience))
    trainer = atomic(SentenceTransformerTrainer)(
        model=model,
        args=args,
        train_dataset=next(iter(datasets.values())) if single else datasets,
        loss=next(iter(losses.values())) if single else losses,
        evaluator=selector[0] if selector else None,
        callbacks=extra,
    )
    checkpoint = resume_point(folder) if resume else None  # partial ones removed, said
    if checkpoint:
        log.info("stage %d: resuming from %s", index, checkpoint)
    started = time.perf_counter()
    output = trainer.train(resume_from_checkpoint=checkpoint)
    state = trainer.state
    return {
        "name": stage.name,
        "loss": prepared.loss_names,
        "tasks": prepared.report(),
        "epochs": stage.epochs,
        "rows": prepared.rows,
        "data": [d.report() for t in prepared.tasks for d in t.data],
        "steps": state.global_step,
        "max_steps": state.max_steps,
        "train_loss": float(output.training_loss),
        "best_step": _step_of(state.best_model_checkpoint),
        "best_dev_spearman": 100 * state.best_metric if state.best_metric is not None else None,
        "resumed_from": Path(checkpoint).name if checkpoint else None,
        "wall_s": time.perf_counter() - started,
    }


def _log_scores(when: str, dev: dict | None, report: dict | None) -> None:
    for role, scores in (("dev", dev), ("report", report)):
        if scores:
            each = ", ".join(f"{r['path']} {r['spearman']:.2f}" for r in scores["sets"])
            log.info("%s %s: Spearman %.2f (%s)", role, when, scores["spearman"], each)



def _step_of(checkpoint: str | None) -> int | None:
    return int(checkpoint.rsplit("-", 1)[-1]) if checkpoint else None


def _log_to(path: Path) -> logging.Handler:
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("bertscope")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return handler


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
