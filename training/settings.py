"""The one table of a training run's settings: each `Setting` names its `fit` flag, its recipe key,
the `FitConfig` field it sets and the rule its values follow. The `fit` flags (`flags.py`), the
recipe's checks (`recipe.py`) and the library's checks of a `FitConfig` (`checks.py`) are all
made from it, so a setting has one name per place and one rule everywhere; defaults are
`FitConfig`'s own. A rule's refusal reads the same wherever it is met: `--lr: must be > 0, got 0`
on the command line, `recipes/x.json: lr: must be > 0, got 0` in a recipe."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common.argtypes import integer, number
from common.prompts import prompt_prefix

from .config import FitConfig
from .errors import TrainingError
from .pooling import POOLING_MODES, check_pooling

_KINDS = {int: "an integer", float: "a finite number", bool: "true or false", str: "a string"}


def _shown(x: float) -> str:
    return "2**32" if x == 2**32 else f"{x:g}"


@dataclass(frozen=True)
class Rule:
    """What values a setting takes: a kind (int, float, bool, str) within bounds, or passing
    `check` (returns what is wrong, or None); `nullable`: None (recipe null) means "not set"."""

    kind: type
    minimum: float | None = None  # value >= minimum
    above: float | None = None  # value > above
    below: float | None = None  # value < below
    maximum: float | None = None  # value <= maximum
    check: Callable[[Any], str | None] | None = None
    nullable: bool = False

    @property
    def text(self) -> str:
        """The bounds as a user reads them: `>= 1`, `> 0`, `in [0, 1)`."""
        if self.minimum is not None and self.below is not None:
            return f"in [{_shown(self.minimum)}, {_shown(self.below)})"
        parts = [f"{op} {_shown(x)}" for op, x in
                 ((">=", self.minimum), (">", self.above), ("<", self.below),
                  ("<=", self.maximum)) if x is not None]
        return " and ".join(parts)

    @property
    def types(self) -> tuple[type, ...]:
        """The JSON types a recipe may give (an int where a float is asked for)."""
        kinds = (float, int) if self.kind is float else (self.kind,)
        return (*kinds, type(None)) if self.nullable else kinds

    def problem(self, value: Any) -> str | None:
        """What is wrong with `value` (`must be >= 1, got 0`), or None."""
        if value is None and self.nullable:
            return None
        if not self._of_kind(value):
            return f"must be {_KINDS[self.kind]} {self.text}".rstrip() + f", got {_got(value)}"
        if self.check is not None:
            return self.check(value)
        bad = ((self.minimum is not None and value < self.minimum)
               or (self.above is not None and value <= self.above)
               or (self.below is not None and value >= self.below)
               or (self.maximum is not None and value > self.maximum))
        return f"must be {self.text}, got {_got(value)}" if bad else None

    def parse(self, text: str) -> Any:
        """A value typed as text (a form's field) -> the value, by this rule's kind and checked
        by it; `ValueError` says what is wrong (`'two' is not a number`, `must be > 0, got
        0.0`). Empty text is None where the setting may be unset."""
        text = text.strip()
        if not text and self.nullable:
            return None
        value: Any = text
        if self.kind in (int, float):
            try:
                value = self.kind(text)
            except ValueError:
                kind = "a whole number" if self.kind is int else "a number"
                raise ValueError(f"{text!r} is not {kind}") from None
        elif self.kind is bool:
            raise ValueError("a true-or-false setting is a checkbox, not text")
        problem = self.problem(value)
        if problem:
            raise ValueError(problem)
        return value

    def _of_kind(self, value: Any) -> bool:
        if self.kind is str:
            return isinstance(value, (str, os.PathLike))
        if isinstance(value, bool) or self.kind is bool:
            return isinstance(value, bool) and self.kind is bool
        kinds = (int,) if self.kind is int else (int, float)
        try:
            return isinstance(value, kinds) and math.isfinite(value)
        except OverflowError:  # an integer of hundreds of digits: no number a run can use
            return False

    def argtype(self) -> Callable[[str], Any]:
        """argparse's `type=`: a refused value ends as `argument --flag: must be ...`."""
        if self.kind is int:
            return integer(self.minimum, None if self.below is None else self.below - 1)
        if self.kind is float:
            return number(self.minimum, above=self.above, below=self.below,
                          maximum=self.maximum)
        return str


def _got(value: Any) -> str:
    """`value` as a message shows it: an integer of hundreds of digits by its size."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    return repr(value)


def _raised(check: Callable[[Any], Any]) -> Callable[[Any], str | None]:
    def problem(value: Any) -> str | None:
        try:
            check(value)
        except (TrainingError, ValueError) as exc:
            return str(exc)
        return None

    return problem


@dataclass(frozen=True)
class Setting:
    """One setting: `field` of FitConfig, its `fit` flag (None: recipe only) and recipe key
    (None: how one run behaves, not what it trains, so a flag only)."""

    field: str
    flag: str | None
    key: str | None
    rule: Rule
    help: str = ""
    required: bool = False
    from_flag: Callable[[Any], Any] = lambda value: value  # noqa: E731  flag value -> field

    @property
    def label(self) -> str:
        """How a message names it: the flag, else the recipe key."""
        return self.flag or str(self.key)

    @property
    def dest(self) -> str | None:
        return self.flag[2:].replace("-", "_") if self.flag else None

    @property
    def default(self) -> Any:
        return _DEFAULTS.get(self.field)

    def add_flag(self, parser: argparse.ArgumentParser) -> None:
        """The flag, default None (so a recipe tells given from default); its help says the
        rule, the default and the recipe key, from this table."""
        if self.rule.kind is bool:
            parser.add_argument(self.flag, action="store_true", default=None,
                                help=self._help())
            return
        parser.add_argument(self.flag, type=self._parse, default=None, help=self._help())

    def _help(self) -> str:
        rule = f"{_KINDS[self.rule.kind]} {self.rule.text}" if self.rule.text else ""
        shown = self.default is not None and self.rule.kind is not bool
        notes = [f"default {self.default}" if shown else "",
                 f"recipe: {self.key}" if self.key else "not in a recipe"]
        text = "; ".join(x for x in (self.help, rule) if x)
        return f"{text} ({', '.join(n for n in notes if n)})"

    def _parse(self, text: str) -> Any:
        """Numbers by `common.argtypes`; names checked by the rule, kept as typed (`none`)."""
        if self.rule.kind in (int, float):
            return self.rule.argtype()(text)
        problem = self.rule.problem(self.from_flag(text))
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return text


_DEFAULTS = {f.name: f.default for f in dataclasses.fields(FitConfig)
             if f.default is not dataclasses.MISSING}
POSITIVE = Rule(int, minimum=1)
OPTIONAL_POSITIVE = Rule(int, minimum=1, nullable=True)
LEARNING_RATE = Rule(float, above=0)
MAX_EPOCHS = 1000  # a bound that no useful run reaches; 1e9 epochs were taken, and never end
EPOCHS = Rule(float, above=0, maximum=MAX_EPOCHS)

SETTINGS: tuple[Setting, ...] = (
    Setting("model", "--model", "model", Rule(str), "bundled name or model folder", required=True),
    Setting("pooling", "--pooling", "pooling", Rule(str, check=_raised(check_pooling)),
            f"one of {', '.join(POOLING_MODES)}"),
    Setting("max_seq_length", "--max-length", "max_length", Rule(int, minimum=8),
            "max tokens per text"),
    Setting("batch_size", "--batch-size", "batch_size", POSITIVE, "examples per training step"),
    Setting("learning_rate", "--lr", "lr", LEARNING_RATE, "peak learning rate"),
    Setting("warmup_ratio", "--warmup", "warmup", Rule(float, minimum=0, below=1),
            "warm-up fraction of all steps"),
    Setting("weight_decay", "--weight-decay", "weight_decay", Rule(float, minimum=0),
            "AdamW weight decay"),
    Setting("eval_steps", "--eval-steps", "eval_steps", POSITIVE,
            "evaluate the dev sets every N steps"),
    Setting("logging_steps", "--logging-steps", "logging_steps", POSITIVE,
            "log the loss every N steps"),
    Setting("seed", "--seed", "seed", Rule(int, minimum=0, below=2**32),
            "seed of sampling, shuffling and new weights"),
    Setting("max_rows", "--max-rows", "max_rows", OPTIONAL_POSITIVE,
            "train on a seeded random sample of N rows a stage"),
    Setting("early_stopping_patience", "--early-stopping-patience", "early_stopping_patience",
            OPTIONAL_POSITIVE, "stop a stage after N dev evaluations without a gain (needs --dev)"),
    Setting("prompt", "--prompt", "prompt",
            Rule(str, nullable=True, check=_raised(lambda p: prompt_prefix(None, p))),
            "model prompt before every text, or 'none'",
            from_flag=lambda text: None if text == "none" else text),
    Setting("freeze_embeddings", "--freeze-embeddings", "freeze_embeddings", Rule(bool),
            "do not train the word-embedding matrix (cheaper steps for big vocabularies)"),
    Setting("keep_checkpoints", "--keep-checkpoints", None, Rule(bool),
            "keep each stage's checkpoints"),
    Setting("show_progress", "--no-progress", None, Rule(bool), "no progress bar",
            from_flag=lambda given: not given),
)
RECIPE_SETTINGS = tuple(s for s in SETTINGS if s.key)
FLAG_SETTINGS = tuple(s for s in SETTINGS if s.flag)
BY_FIELD = {s.field: s for s in SETTINGS}

# a stage's own settings in a recipe: key -> (Stage field, rule); a task's row budget
STAGE_SETTINGS: dict[str, tuple[str, Rule]] = {
    "epochs": ("epochs", EPOCHS),
    "batch_size": ("batch_size", Rule(int, minimum=1, nullable=True)),
    "lr": ("learning_rate", Rule(float, above=0, nullable=True)),
}
TASK_MAX_ROWS = OPTIONAL_POSITIVE


def check_value(label: str, rule: Rule, value: Any) -> None:
    """Raise `TrainingError("LABEL: must be ..., got ...")` when `value` breaks `rule`."""
    problem = rule.problem(value)
    if problem:
        raise TrainingError(f"{label}: {problem}")


def check_settings(config: FitConfig) -> None:
    """Every setting of `config` by its rule, named by its flag (else its recipe key)."""
    for s in SETTINGS:
        check_value(s.label, s.rule, getattr(config, s.field))


def flag_values(flags: dict[str, Any]) -> dict[str, Any]:
    """FitConfig fields set by the setting flags present in `flags` (dest -> value as parsed)."""
    return {s.field: s.from_flag(flags[s.dest]) for s in FLAG_SETTINGS
            if flags.get(s.dest) is not None}


def setting_flags(values: dict[str, Any]) -> list[str]:
    """The `fit` flags that set these FitConfig fields (field -> value), in the table's order:
    what a page hands the command line. A true bool is its flag and a false one nothing (a flag
    cannot turn a recipe's true off); None (not set) and settings without a flag give nothing."""
    flags: list[str] = []
    for s in FLAG_SETTINGS:
        if s.field not in values or s.field == "show_progress":
            continue
        value = values[s.field]
        if s.rule.kind is bool:
            flags += [s.flag] if value else []
        elif s.field == "prompt":
            flags += [s.flag, "none" if value is None else str(value)]
        elif value is not None:
            flags += [s.flag, str(value)]
    return flags
