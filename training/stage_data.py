"""A stage's training data, ready for the trainer: each task's files loaded, its loss picked (the
data kind's default when none is given, and said so), rows shaped for that loss, sampled, and
prefixed with the model's prompts."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from datasets import Dataset, concatenate_datasets

from .checks import check_stage
from .config import FitConfig, Stage, Task
from .data import LoadedData, load_pairs
from .default_loss import default_loss
from .dev_sets import set_name
from .errors import TrainingError
from .losses import LossSpec, check_loss_data, get_loss

log = logging.getLogger("bertscope.training")


@dataclass
class PreparedTask:
    name: str
    spec: LossSpec
    data: list[LoadedData]
    dataset: Dataset
    default_loss: bool  # True when the loss was picked from the data kind

    def prefixed(self, query: str, passage: str) -> Dataset:
        """The rows with the model's prompts (the passage prompt only on retrieval documents)."""
        retrieval = all(d.kind == "triplet" for d in self.data)
        return with_prefixes(self.dataset, query, passage if retrieval else query)


@dataclass
class PreparedStage:
    stage: Stage
    tasks: list[PreparedTask]

    @property
    def rows(self) -> int:
        return sum(len(t.dataset) for t in self.tasks)

    @property
    def loss_names(self) -> str:
        if len(self.tasks) == 1:
            return self.tasks[0].spec.name
        return ", ".join(f"{t.spec.name} ({t.name})" for t in self.tasks)

    @property
    def uses_mnrl(self) -> bool:
        return any(t.spec.name == "mnrl" for t in self.tasks)

    def report(self) -> list[dict]:
        return [
            {"task": t.name, "loss": t.spec.name, "default_loss": t.default_loss,
             "rows": len(t.dataset), "files": [d.path for d in t.data]}
            for t in self.tasks
        ]


def prepare_stage(stage: Stage, config: FitConfig, index: int = 0) -> PreparedStage:
    """Load and check every file of `stage`; raises `TrainingError` naming the file or setting."""
    check_stage(stage)
    tasks = [_prepare_task(t, config, index) for t in stage.all_tasks()]
    names = [t.name for t in tasks]
    for i, t in enumerate(tasks):  # the trainer keys multi-task datasets by name
        if names.count(t.name) > 1:
            t.name = f"{t.name}-{i}"
    return PreparedStage(stage, tasks)


def _prepare_task(task: Task, config: FitConfig, stage_index: int) -> PreparedTask:
    if not task.train:
        raise TrainingError(f"stage {stage_index}: a task with loss {task.loss!r} has no file")
    loaded = [load_pairs(path) for path in task.train]
    for data in loaded:
        log.info("train: %s", data.summary())
    chosen = task.loss is None
    if chosen:
        loss = default_loss({d.kind for d in loaded}, task.train)
        kinds = " + ".join(sorted({d.kind for d in loaded}))
        log.info(
            "stage %d: no loss given for %s (%s data): using the default for that kind, %r",
            stage_index, ", ".join(task.train), kinds, loss,
        )
    else:
        loss = task.loss
    spec = get_loss(loss)
    parts = []
    for data in loaded:
        check_loss_data(spec, data)
        parts.append(spec.prepare(data, config.seed))
    dataset = concatenate_datasets(parts) if len(parts) > 1 else parts[0]
    max_rows = task.max_rows if task.max_rows is not None else config.max_rows  # checked
    if max_rows is not None and max_rows < len(dataset):
        # a seeded random sample: files such as STS-B are ordered by source genre
        dataset = dataset.shuffle(seed=config.seed).select(range(max_rows))
    if len(dataset) == 0:
        raise TrainingError(f"{', '.join(task.train)}: no rows left for loss {spec.name!r}")
    name = set_name(task.train[0])  # "sts-train": never a torch Module attribute ("train")
    return PreparedTask(name, spec, loaded, dataset, chosen)


def with_prefixes(dataset: Dataset, query: str, passage: str) -> Dataset:
    """Prompts before every text column: `query` on the first, `passage` on the others (retrieval
    triplets: query, relevant, negative); pass `passage=query` for symmetric data (STS, NLI)."""
    texts = [c for c in dataset.column_names if dataset.features[c].dtype == "string"]
    prefix = {c: (query if i == 0 else passage) for i, c in enumerate(texts)}
    if not any(prefix.values()):
        return dataset
    return dataset.map(lambda r: {c: prefix[c] + r[c] for c in texts})
