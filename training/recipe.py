"""Recipes: a training run as one reviewed file (JSON, or YAML), run by
`python -m training fit --config recipes/NAME.json`.

A recipe names the model, every stage (files, loss, epochs, per-stage batch size / learning
rate / row budget, or several tasks each with its own loss), the shared hyper-parameters, the dev
sets that pick the best checkpoint (several: their mean) and the report sets that are only scored.
Data paths are relative to a data root (`--data`, else `$BERTSCOPE_DATA`, else `../shared/data`
beside the repository). `FILE#train`, `FILE#select` and `FILE#heldout` name the parts of a file
the recipe splits in `holdout` (see `holdout.py`); a split file may only be used through its parts,
so held-out pairs cannot slip into training. Flags given on the command line override the file.
Every mistake is reported with where it is: `recipes/x.json: stages[1].loss: Unknown loss ...`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from common.encoding import not_utf8
from common.home import data_root

from .checks import SCORED_APART, scored_on_training_data
from .config import FitConfig, Stage, Task
from .errors import TrainingError
from .holdout import ALL_PARTS, PARTS, HoldoutSpec, HoldoutSplit, plan_split
from .losses import get_loss
from .recipe_checks import Checker as _Checker
from .recipe_checks import existing as _existing
from .recipe_cv import CrossValidation, cross_validation
from .recipe_data import recipe_data
from .settings import RECIPE_SETTINGS, STAGE_SETTINGS, TASK_MAX_ROWS

CV_TRAIN = "cv:train"  # in a cross-validation recipe: the triplets of the training folds

TOP_KEYS = {"recipe", "about", "data", "holdout", "stages", "dev", "report", "cross_validation",
            *(s.key for s in RECIPE_SETTINGS)}
STAGE_KEYS = {"name", "train", "max_rows", "tasks", "about", "loss", *STAGE_SETTINGS}
TASK_KEYS = {"train", "loss", "max_rows"}
HOLDOUT_KEYS = {"seed", *PARTS}


@dataclass(frozen=True)
class Recipe:
    name: str
    path: Path
    data_root: Path
    config: FitConfig
    splits: dict[str, dict[str, str]] = field(default_factory=dict)  # file -> part -> path
    cross_validation: CrossValidation | None = None
    holdouts: tuple[HoldoutSplit, ...] = ()  # the parts `splits` names, written by write_splits

    def write_splits(self) -> None:
        """Write the held-out parts the recipe names (a run starts; loading wrote nothing)."""
        for split in self.holdouts:
            split.write()


def read_recipe_file(path: str | Path) -> dict[str, Any]:
    p = Path(path).expanduser()
    if not p.is_file():
        raise TrainingError(f"--config {p}: no such recipe file (see recipes/ for examples)")
    problem = not_utf8(p)
    if problem:
        raise TrainingError(f"{p} {problem}")
    text = p.read_text(encoding="utf-8-sig")  # a byte-order mark (Notepad) is no JSON
    try:
        if p.suffix.lower() in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except ImportError as exc:
        raise TrainingError(f"{p}: reading YAML needs PyYAML (pip install pyyaml)") from exc
    except Exception as exc:  # json.JSONDecodeError, yaml.YAMLError
        raise TrainingError(f"{p}: not valid {p.suffix[1:].upper() or 'JSON'}: {exc}") from exc
    if not isinstance(data, dict):
        raise TrainingError(f"{p}: a recipe is an object of settings, got {type(data).__name__}")
    return data


def load_recipe(
    path: str | Path,
    *,
    out: str,
    data: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    cache: Path | None = None,
) -> Recipe:
    """Read, check and resolve a recipe; `overrides` are FitConfig fields set by flags. Writes
    nothing: the held-out parts it names are written by `Recipe.write_splits` when a run starts."""
    raw = read_recipe_file(path)
    v = _Checker(Path(path))
    v.keys(raw, TOP_KEYS, "")
    name = v.typed(raw, "recipe", (str,), "", required=True)
    recipe_data(raw, str(path))  # the data sets it names: name, hub id, licence, files
    settings = {s.field: v.ruled(raw, s.key, s.rule, "", required=s.required)
                for s in RECIPE_SETTINGS if s.required or s.key in raw}
    root = data_root(data)
    if not root.is_dir():
        raise TrainingError(f"{path}: data root {root} not found; pass --data or set "
                            "BERTSCOPE_DATA")
    cv = cross_validation(v, raw.get("cross_validation"), root)
    holdouts = _holdouts(v, raw.get("holdout", {}), root, cache)
    splits = {ref: {p: str(f) for p, f in split.files.items()} for ref, split in holdouts.items()}
    refs = _Refs(v, root, splits, cv is not None)
    stages = tuple(_stage(v, s, f"stages[{i}]", refs)
                   for i, s in enumerate(v.typed(raw, "stages", (list,), "", required=True)))
    if not stages:
        raise v.error("stages", "needs at least one stage")
    dev = tuple(refs.file(r, f"dev[{i}]") for i, r in enumerate(v.typed(raw, "dev", (list,), "")
                                                                 or []))
    report = tuple(refs.file(r, f"report[{i}]")
                   for i, r in enumerate(v.typed(raw, "report", (list,), "") or []))
    _check_scored_apart(v, raw, stages, dev, report)
    config = FitConfig(stages=stages, out=out, dev=dev or None, report=report,
                       extra={"recipe": {"name": name, "file": str(path), "data_root": str(root),
                                         "splits": splits}}, **settings)
    if overrides:
        config = replace(config, **overrides)
    return Recipe(name, Path(path), root, config, splits, cv, tuple(holdouts.values()))


def _check_scored_apart(v: _Checker, raw: dict[str, Any], stages: tuple[Stage, ...],
                        dev: tuple[str, ...], report: tuple[str, ...]) -> None:
    """No dev or report set is a training file (a dev set scored on its own training data
    reads ~100 and picks no real best checkpoint)."""
    trained = []
    for i, (stage_raw, stage) in enumerate(zip(raw["stages"], stages, strict=True)):
        if "tasks" in stage_raw:
            trained += [(f"stages[{i}].tasks[{t}].train[{k}]", f)
                        for t, task in enumerate(stage.tasks) for k, f in enumerate(task.train)]
        else:
            trained += [(f"stages[{i}].train[{k}]", f)
                        for k, f in enumerate(stage.all_tasks()[0].train)]
    scored = [*((f"dev[{i}]", p) for i, p in enumerate(dev)),
              *((f"report[{i}]", p) for i, p in enumerate(report))]
    hit = scored_on_training_data(scored, [(w, f) for w, f in trained if f != CV_TRAIN])
    if hit:
        role, _, index = hit[0].partition("[")
        raise v.error(hit[0], f"{raw[role][int(index[:-1])]} {hit[1]} {hit[2]}: {SCORED_APART} "
                              "(e.g. a part of a `holdout` split: FILE#select)")


def _stage(v: _Checker, raw: Any, where: str, refs: _Refs) -> Stage:
    if not isinstance(raw, dict):
        raise v.error(where, f"a stage is an object, got {type(raw).__name__}")
    v.keys(raw, STAGE_KEYS, where)
    own = {attr: v.ruled(raw, key, rule, where) for key, (attr, rule) in STAGE_SETTINGS.items()}
    if ("tasks" in raw) == ("train" in raw):
        raise v.error(where, "give either `train` (one task) or `tasks` (several), not both "
                             "or neither")
    if "tasks" in raw:
        tasks_raw = v.typed(raw, "tasks", (list,), where)
        tasks = tuple(_task(v, t, f"{where}.tasks[{i}]", refs) for i, t in enumerate(tasks_raw))
        if not tasks:
            raise v.error(f"{where}.tasks", "needs at least one task")
        train, loss = (), None
    else:
        task = _task(v, {k: raw[k] for k in TASK_KEYS if k in raw}, where, refs)
        # a row budget travels on the task, so one-task stages keep one shape
        tasks, train, loss = ((task,), (), None) if task.max_rows else ((), task.train, task.loss)
    lr = own["learning_rate"]
    return Stage(train=train, loss=loss, epochs=float(own["epochs"] or 1.0), tasks=tasks,
                 name=v.typed(raw, "name", (str,), where), batch_size=own["batch_size"],
                 learning_rate=float(lr) if lr is not None else None)


def _task(v: _Checker, raw: Any, where: str, refs: _Refs) -> Task:
    if not isinstance(raw, dict):
        raise v.error(where, f"a task is an object, got {type(raw).__name__}")
    v.keys(raw, TASK_KEYS, where)
    files = v.typed(raw, "train", (list, str), where, required=True)
    files = [files] if isinstance(files, str) else files
    if not files:
        raise v.error(f"{where}.train", "lists no file")
    train = tuple(refs.file(f, f"{where}.train[{i}]") for i, f in enumerate(files))
    loss = v.typed(raw, "loss", (str, type(None)), where)
    if loss is not None:
        try:
            loss = get_loss(loss).name
        except TrainingError as exc:
            raise v.error(f"{where}.loss", str(exc)) from None
    return Task(train, loss, v.ruled(raw, "max_rows", TASK_MAX_ROWS, where))


def _holdouts(v: _Checker, raw: Any, root: Path, cache: Path | None) -> dict[str, HoldoutSplit]:
    if not isinstance(raw, dict):
        raise v.error("holdout", "maps a data file to its held-out part sizes")
    if cache is None:
        from common import bertscope_home

        cache = bertscope_home() / "recipe-data"
    splits = {}
    for ref, spec in raw.items():
        where = f"holdout[{ref!r}]"
        if not isinstance(spec, dict):
            raise v.error(where, "is an object such as {\"seed\": 15, \"heldout\": 2000}")
        v.keys(spec, HOLDOUT_KEYS, where)
        sizes = {p: v.typed(spec, p, (int,), where) for p in PARTS if p in spec}
        if not sizes or any(n < 1 for n in sizes.values()):
            raise v.error(where, f"needs a size >= 1 for at least one of {', '.join(PARTS)}")
        source = _existing(v, root, ref, where)
        try:
            splits[ref] = plan_split(source, HoldoutSpec(v.typed(spec, "seed", (int,), where)
                                                         or 0, sizes), cache)
        except TrainingError as exc:
            raise v.error(where, str(exc)) from None
    return splits


class _Refs:
    """Data references of one recipe -> absolute paths."""

    def __init__(self, v: _Checker, root: Path, splits: dict, cv: bool) -> None:
        self.v, self.root, self.splits, self.cv = v, root, splits, cv

    def file(self, ref: Any, where: str) -> str:
        if not isinstance(ref, str) or not ref.strip():
            raise self.v.error(where, f"a data file is a path string, got {ref!r}")
        if ref == CV_TRAIN:
            if not self.cv:
                raise self.v.error(where, f"{CV_TRAIN} needs a cross_validation block")
            return ref
        base, _, part = ref.partition("#")
        if part:
            if base not in self.splits:
                raise self.v.error(where, f"{ref}: {base} is not split in `holdout`; add it there "
                                          f"or drop #{part}")
            if part not in ALL_PARTS:
                raise self.v.error(where, f"{ref}: unknown part {part!r}. Valid: "
                                          f"{', '.join(ALL_PARTS)}")
            return self.splits[base][part]
        if base in self.splits:
            raise self.v.error(where, f"{ref} is split in `holdout`: use {ref}#train, "
                                      f"#select or #heldout")
        return str(_existing(self.v, self.root, base, where))
