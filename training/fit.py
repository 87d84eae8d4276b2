"""`fit`: train a Siamese Sentence-BERT in one or more stages with `SentenceTransformerTrainer`.

Everything a user can get wrong (loss names, data files, dev set, output folder) is checked before
the model is built. Each stage evaluates on the dev set every `eval_steps`, keeps the best
checkpoint, and can resume from its last checkpoint; the final model lands at the top of `out`.
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

from datasets import Dataset, concatenate_datasets
from sentence_transformers import (
    SentenceTransformer,
    SentenceTransformerTrainer,
    SentenceTransformerTrainingArguments,
)
from sentence_transformers.base.sampler import BatchSamplers
from transformers import TrainerCallback, set_seed
from transformers.trainer_utils import get_last_checkpoint

from common import write_json_atomic

from .callbacks import JsonlLogCallback
from .checks import check_numbers, check_stage
from .config import FitConfig, Stage
from .data import LoadedData, load_pairs
from .errors import TrainingError
from .losses import LossSpec, check_loss_data
from .report import DEV_METRIC, model_card, plot_curve, read_log
from .run_folder import RUN_FILE, RUN_FORMAT, prepare_out, read_run, stage_dir
from .siamese import build_siamese, check_pooling, freeze_word_embeddings
from .sts import check_prompt, evaluate_sts, load_sts, prompt_prefix, sts_evaluator

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


@dataclass
class _PreparedStage:
    stage: Stage
    spec: LossSpec
    data: list[LoadedData]
    dataset: Dataset


def fit(
    config: FitConfig, *, resume: bool = False, callbacks: Sequence[TrainerCallback] = ()
) -> FitResult:
    """Train per `config`; `resume` continues an interrupted run in `config.out`.

    `callbacks` are extra `transformers.TrainerCallback`s added to every stage.
    """
    if not isinstance(config, FitConfig):
        raise TypeError(f"config must be a FitConfig, got {type(config).__name__}")
    check_numbers(config)
    check_pooling(config.pooling)
    check_prompt(config.prompt)
    stages = [_prepare_stage(s, config) for s in config.stages]
    dev = load_sts(config.dev) if config.dev else None
    if dev is not None:
        log.info("dev: %s", dev.summary())
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
        return _train(config, stages, dev, out, run, model, callbacks, resume)
    finally:
        logging.getLogger("bertscope").removeHandler(handler)
        handler.close()


def _start_model(config: FitConfig, out: Path, run: dict[str, Any]) -> SentenceTransformer:
    done = run["stages_done"]
    if done:  # resume after a finished stage: continue from its weights
        model = SentenceTransformer(
            str(stage_dir(out, len(done) - 1) / "final"), device="cpu", local_files_only=True
        )
    else:
        model = build_siamese(
            config.model, pooling=config.pooling, max_seq_length=config.max_seq_length
        )
    return model


def _train(config, stages, dev, out, run, model, callbacks, resume) -> FitResult:
    started = time.perf_counter()
    set_seed(config.seed)
    done: list[dict[str, Any]] = run["stages_done"]
    if config.freeze_embeddings:
        freeze_word_embeddings(model)
    prefix = prompt_prefix(model, config.prompt)
    evaluator = sts_evaluator(dev, model, name="dev", prompt=config.prompt) if dev else None
    if dev is not None and "dev_before" not in run:
        run["dev_before"] = evaluate_sts(model, dev, prompt=config.prompt).to_dict()
        write_json_atomic(out / RUN_FILE, run)
        log.info("dev before training: Spearman %.2f", run["dev_before"]["spearman"])

    for index, prepared in enumerate(stages):
        if index < len(done):
            continue
        record = _run_stage(
            index, prepared, model, evaluator, config, prefix, out, callbacks, resume
        )
        model.save(str(stage_dir(out, index) / "final"), create_model_card=False)
        done.append(record)
        write_json_atomic(out / RUN_FILE, run)

    model.save(str(out), create_model_card=False)
    metrics = {
        "model": config.model,
        "pooling": config.pooling,
        "prompt_prefix": prefix,
        "dev": {"path": dev.path, "rows": len(dev), "bad_rows": len(dev.bad_rows)} if dev else None,
        "dev_before": run.get("dev_before"),
        "dev_after": evaluate_sts(model, dev, prompt=config.prompt).to_dict() if dev else None,
        "stages": done,
        "wall_s": sum(s["wall_s"] for s in done) if resume else time.perf_counter() - started,
        "started_at": run["started_at"],
        "finished_at": _now(),
    }
    write_json_atomic(out / "metrics.json", metrics)
    write_json_atomic(
        out / "data_report.json",
        {"stages": [s["data"] for s in done], "dev": dev.report() if dev else None},
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
    if dev:
        log.info(
            "dev after training: Spearman %.2f (before %.2f)",
            metrics["dev_after"]["spearman"],
            before,
        )
    return FitResult(out, metrics)


def _run_stage(
    index,
    prepared: _PreparedStage,
    model,
    evaluator,
    config: FitConfig,
    prefix: str,
    out: Path,
    callbacks,
    resume: bool,
) -> dict[str, Any]:
    spec, stage = prepared.spec, prepared.stage
    folder = stage_dir(out, index)
    dataset = _with_prefix(prepared.dataset, prefix)
    log.info("stage %d: %s on %d rows for %g epochs", index, spec.name, len(dataset), stage.epochs)
    has_dev = evaluator is not None
    args = SentenceTransformerTrainingArguments(
        output_dir=str(folder),
        num_train_epochs=stage.epochs,
        per_device_train_batch_size=config.batch_size,
        per_device_eval_batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        warmup_steps=config.warmup_ratio,  # a float below 1 is a fraction of all steps
        lr_scheduler_type="linear",
        weight_decay=config.weight_decay,
        seed=config.seed,
        data_seed=config.seed,
        eval_strategy="steps" if has_dev else "no",
        eval_steps=config.eval_steps,
        save_strategy="steps",
        save_steps=config.eval_steps,
        save_total_limit=2,  # the last checkpoint (for --resume) and the best one
        load_best_model_at_end=has_dev,
        metric_for_best_model=DEV_METRIC if has_dev else None,
        greater_is_better=True,
        logging_steps=config.logging_steps,
        report_to="none",
        use_cpu=True,
        dataloader_num_workers=0,
        disable_tqdm=not config.show_progress,
        batch_sampler=BatchSamplers.NO_DUPLICATES
        if spec.name == "mnrl"
        else BatchSamplers.BATCH_SAMPLER,
    )
    trainer = SentenceTransformerTrainer(
        model=model,
        args=args,
        train_dataset=dataset,
        loss=spec.build(model),
        evaluator=evaluator,
        callbacks=[JsonlLogCallback(out / "training_log.jsonl", index), *callbacks],
    )
    checkpoint = get_last_checkpoint(str(folder)) if resume and folder.is_dir() else None
    if checkpoint:
        log.info("stage %d: resuming from %s", index, checkpoint)
    started = time.perf_counter()
    output = trainer.train(resume_from_checkpoint=checkpoint)
    state = trainer.state
    return {
        "loss": spec.name,
        "epochs": stage.epochs,
        "rows": len(dataset),
        "data": [d.report() for d in prepared.data],
        "steps": state.global_step,
        "train_loss": float(output.training_loss),
        "best_step": _step_of(state.best_model_checkpoint),
        "best_dev_spearman": 100 * state.best_metric if state.best_metric is not None else None,
        "resumed_from": Path(checkpoint).name if checkpoint else None,
        "wall_s": time.perf_counter() - started,
    }


def _prepare_stage(stage: Stage, config: FitConfig) -> _PreparedStage:
    spec = check_stage(stage)
    loaded, parts = [], []
    for path in stage.train:
        data = load_pairs(path)
        check_loss_data(spec, data)
        log.info("train: %s", data.summary())
        loaded.append(data)
        parts.append(spec.prepare(data, config.seed))
    dataset = concatenate_datasets(parts) if len(parts) > 1 else parts[0]
    if config.max_rows is not None and config.max_rows < len(dataset):
        # a seeded random sample: files such as STS-B are ordered by source genre
        dataset = dataset.shuffle(seed=config.seed).select(range(config.max_rows))
    if len(dataset) == 0:
        raise TrainingError(f"{', '.join(stage.train)}: no rows left for loss {spec.name!r}")
    return _PreparedStage(stage, spec, loaded, dataset)


def _with_prefix(dataset: Dataset, prefix: str) -> Dataset:
    if not prefix:
        return dataset
    texts = [c for c in dataset.column_names if dataset.features[c].dtype == "string"]
    return dataset.map(lambda r: {c: prefix + r[c] for c in texts})


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
