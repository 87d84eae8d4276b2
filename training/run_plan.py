"""A `fit` run as a page plans it: a base model and a shipped recipe or one data file, the
settings a person may change (their defaults the recipe's, else `FitConfig`'s), and the
`python -m training fit` flags that run it (`training.jobs.fit_job`). What a data file is and
which loss it gets are the library's answers (`load_pairs`, `default_loss`), said in words."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import shipped_folder
from common.home import bertscope_home

from .config import FitConfig
from .data import load_pairs
from .default_loss import default_loss
from .holdout import HoldoutSpec, materialise, plan_split
from .recipe import Recipe, load_recipe, read_recipe_file
from .settings import BY_FIELD, setting_flags

RECIPES = shipped_folder("recipes")  # the checkout's, or where a wheel installed them
# what a page offers to change; the rest (prompt, checkpoints, progress) stays as given
PAGE_SETTINGS = ("pooling", "max_seq_length", "batch_size", "learning_rate", "warmup_ratio",
                 "weight_decay", "eval_steps", "logging_steps", "seed", "max_rows",
                 "early_stopping_patience", "freeze_embeddings")
KIND_TEXT = {
    "scored": "scored pairs (sentence1, sentence2, a similarity score)",
    "binary": "binary pairs (sentence1, sentence2, a 0/1 label)",
    "nli": "NLI pairs (premise, hypothesis, entailment / neutral / contradiction)",
    "triplet": "retrieval pairs (anchor, positive, and an optional hard negative; the other "
               "rows of a batch are negatives too)",
}
HOLD_OUT_SUFFIXES = (".jsonl", ".json")  # what `holdout` splits
SCORED_KINDS = ("scored", "binary")  # what a dev set scores (Spearman of cosine)


@dataclass(frozen=True)
class DataCheck:
    """One training file as the library read it: its kind, valid and skipped rows, and the
    loss `fit` gives that kind when none is named."""

    path: str
    kind: str
    rows: int
    bad_rows: int
    loss: str
    score_max: float

    @property
    def can_hold_out(self) -> bool:
        """Scored or binary JSONL pairs: a part can be held out as the dev set."""
        return self.kind in SCORED_KINDS and Path(self.path).suffix.lower() in HOLD_OUT_SUFFIXES

    def sentence(self) -> str:
        scale = f", scores 0–{self.score_max:g}" if self.kind == "scored" else ""
        skipped = f", {self.bad_rows:,} bad rows skipped" if self.bad_rows else ""
        return (f"{KIND_TEXT[self.kind]}: {self.rows:,} rows{scale}{skipped}. Loss: "
                f"**{self.loss}** (the default for {self.kind} data).")


def check_data(path: str | Path) -> DataCheck:
    """Read `path` as training data; raises `TrainingError` with the reason it cannot train."""
    data = load_pairs(path)
    return DataCheck(str(path), data.kind, len(data), len(data.bad_rows),
                     default_loss([data.kind], (str(path),)), data.score_max)


def shipped_recipes(folder: Path = RECIPES) -> dict[str, Path]:
    """Recipe name (file stem) -> file, for every recipe in `folder`."""
    files = sorted(p for p in folder.glob("*") if p.suffix.lower() in (".json", ".yaml", ".yml"))
    return {p.stem: p for p in files}


def recipe_about(path: str | Path) -> str:
    """The recipe's own `about` text ("" where it has none)."""
    about = read_recipe_file(path).get("about", "")
    return about if isinstance(about, str) else ""


def missing_recipe_data(path: str | Path, data: str | Path) -> list:
    """The data sets recipe `path` names that data root `data` lacks (`recipe_data.DataSet`s)."""
    from .recipe_data import missing_data

    return missing_data(read_recipe_file(path), str(path), data)


def check_recipe(path: str | Path, data: str | Path | None = None) -> Recipe:
    """The recipe loaded against data root `data` (writes nothing); raises `TrainingError`
    naming what is missing (a file under the data root, a bad value)."""
    return load_recipe(path, out="(not chosen yet)", data=data,
                       cache=bertscope_home("recipe-data", create=False))


def setting_defaults(config: FitConfig | None = None) -> dict[str, Any]:
    """PAGE_SETTINGS' values in `config` (a recipe's), else FitConfig's defaults."""
    if config is None:
        return {f: BY_FIELD[f].default for f in PAGE_SETTINGS}
    return {f: getattr(config, f) for f in PAGE_SETTINGS}


def stage_rows(config: FitConfig) -> list[dict[str, Any]]:
    """One row per stage and task: what trains with which loss, for a table."""
    rows = []
    for i, stage in enumerate(config.stages):
        for task in stage.all_tasks():
            files = ", ".join("/".join(Path(f).parts[-2:]) for f in task.train)
            rows.append({"stage": stage.name or str(i), "files": files,
                         "loss": task.loss or "the kind's default", "epochs": stage.epochs,
                         "rows": f"{limit:,} at most" if (limit := task.max_rows
                                                         or config.max_rows) else "all"})
    return rows


def dev_split_sizes(path: str | Path, pairs: int, *, seed: int = 0,
                    cache: Path | None = None) -> tuple[int, int]:
    """(pairs left to train on, pairs held out) of `hold_out_dev(path, pairs)`, worked out and
    nothing written, so a form can say them before a run starts; `TrainingError` (why) where
    no split leaves pairs on both sides."""
    split = plan_split(Path(path), HoldoutSpec(seed, {"select": pairs}),
                       cache or bertscope_home("recipe-data"))
    record = split.record or json.loads((split.folder / "split.json").read_text("utf-8"))
    return record["parts"]["train"]["pairs"], record["parts"]["select"]["pairs"]


def hold_out_dev(path: str | Path, pairs: int, *, seed: int = 0,
                 cache: Path | None = None) -> tuple[Path, Path]:
    """(training part, dev part) of a scored / binary JSONL file, `pairs` pairs held out (pairs
    that share a sentence stay on one side), written once under `$BERTSCOPE_HOME/recipe-data`."""
    parts = materialise(Path(path), HoldoutSpec(seed, {"select": pairs}),
                        cache or bertscope_home("recipe-data"))
    return parts["train"], parts["select"]


def fit_flags(model: str, *, recipe: str | Path | None = None, train: str | Path | None = None,
              dev: str | Path | None = None, epochs: float | None = None,
              data: str | Path | None = None, settings: dict[str, Any] | None = None,
              defaults: dict[str, Any] | None = None) -> list[str]:
    """`fit`'s flags (all but `--out`) for a recipe or one training file: `--model`, the stage,
    and the settings that differ from `defaults` (the recipe's own stay in the recipe)."""
    if (recipe is None) == (train is None):
        raise ValueError("give a recipe or a training file, not both or neither")
    flags = (["--config", str(recipe), *(["--data", str(data)] if data else [])] if recipe
             else ["--train", str(train)])
    flags += ["--model", model]
    flags += ["--dev", str(dev)] if dev else []
    flags += ["--epochs", str(epochs)] if epochs is not None else []
    defaults = defaults or {}
    changed = {f: v for f, v in (settings or {}).items()
               if f in PAGE_SETTINGS and (f not in defaults or v != defaults[f])}
    return flags + setting_flags(changed)
