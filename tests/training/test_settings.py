"""One table of training settings (training/settings.py): the `fit` flags, the recipe's checks and
the library's checks of a FitConfig are all made from it, so a setting takes the same values
everywhere and a flag sets the same field as its recipe key."""

from __future__ import annotations

import argparse

import pytest

from tests.training.conftest import load_sts_recipe
from training import FitConfig, Stage, TrainingError
from training.checks import check_config, check_stage
from training.cli import build_parser
from training.config import Task
from training.flags import fit_config
from training.settings import FLAG_SETTINGS, RECIPE_SETTINGS, SETTINGS, check_settings

RUN_ONLY = {"keep_checkpoints", "show_progress"}  # how one run behaves, not what it trains
STRUCTURAL = {"--train", "--loss", "--epochs", "--dev"}  # stages and dev sets: not a Setting
NUMBERS = [-1, 0, 0.5, 1, 2, 7, 8, 1e-5, 0.99, 2**32 - 1, 2**32]
NAMES = {"pooling": ["mean", "cls", "max", "sum", "MEAN"],
         "prompt": ["query", "passage", "qurey", "none"],
         "model": ["minilm"]}


@pytest.fixture
def root(sts_root):
    return sts_root


_recipe = load_sts_recipe


def _flags(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["fit", "--model", "minilm", "--train", "t.jsonl",
                                      "--out", "o", *argv])


def _values(setting):
    if setting.field in NAMES:
        return NAMES[setting.field]
    if setting.rule.kind is bool:
        return [True]
    return [v for v in NUMBERS if setting.rule.kind is float or isinstance(v, int)]


def _verdicts(setting, value, tmp_path, root):
    """(flag, recipe, library): the refusal text, or None where the value is taken."""
    text = "none" if value is None else str(value)
    recipe_value = None if text == "none" and setting.field == "prompt" else value
    try:
        args = _flags(setting.flag) if value is True else _flags(setting.flag, text)
        flag = None
        config = fit_config(args)
        assert getattr(config, setting.field) == recipe_value, setting.flag
    except SystemExit:
        flag = "refused"
    try:
        config = _recipe(tmp_path, root, **{setting.key: recipe_value}).config
        recipe = None
        assert getattr(config, setting.field) == recipe_value, setting.key
    except TrainingError as exc:
        recipe = str(exc).split(f"{setting.key}: ", 1)[1]
    config = FitConfig(**{"model": "minilm", "stages": (Stage(("t.jsonl",)),), "out": "o",
                          "dev": "d.jsonl", setting.field: recipe_value})
    try:
        check_config(config)
        library = None
    except TrainingError as exc:
        library = str(exc).split(f"{setting.flag}: ", 1)[1]
    return flag, recipe, library


def test_every_flag_setting_is_a_recipe_setting_and_the_other_way():
    for s in SETTINGS:
        assert (s.key is None) == (s.field in RUN_ONLY), s
        assert s.flag, f"{s.key}: every recipe setting can be overridden by a flag"
    fields = {s.field for s in SETTINGS}
    assert fields <= {f for f in FitConfig.__dataclass_fields__}
    assert {"model", "learning_rate", "freeze_embeddings", "weight_decay",
            "early_stopping_patience"} <= fields


@pytest.mark.parametrize("setting", [s for s in RECIPE_SETTINGS], ids=lambda s: s.field)
def test_a_flag_and_its_recipe_key_take_the_same_values(setting, tmp_path, root):
    """Each value is taken or refused alike by the flag, the recipe and the library, which
    then hold the same FitConfig field; the recipe and the library say the same words."""
    for value in _values(setting):
        flag, recipe, library = _verdicts(setting, value, tmp_path, root)
        assert (flag is None) == (recipe is None) == (library is None), (value, flag, recipe,
                                                                         library)
        if recipe and isinstance(value, type(setting.rule.kind())):  # types: Checker.typed
            assert recipe == library, value


def test_fit_flags_are_made_from_the_table():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    fit = sub.choices["fit"]
    flags = {o for a in fit._actions for o in a.option_strings if o.startswith("--")}
    run = {"--config", "--data", "--out", "--resume", "--help"}
    assert flags - run - STRUCTURAL == {s.flag for s in FLAG_SETTINGS}
    helped = " ".join(fit.format_help().split())
    for s in FLAG_SETTINGS:
        assert s.flag in helped and (f"recipe: {s.key}" in helped if s.key else True)
    pooling = sub.choices["experiment"]._actions[-1].choices["pooling"]
    assert "--pooling" not in pooling.format_help() and "--lr" in pooling.format_help()


def test_every_flag_sets_its_field(tmp_path):
    """Flags alone build the whole FitConfig (--freeze-embeddings was once dropped there)."""
    config = fit_config(_flags("--freeze-embeddings", "--keep-checkpoints", "--no-progress",
                               "--weight-decay", "0", "--max-rows", "5", "--prompt", "none",
                               "--dev", "d.jsonl", "--early-stopping-patience", "2"))
    assert config.freeze_embeddings and config.keep_checkpoints and not config.show_progress
    assert (config.weight_decay, config.max_rows, config.prompt) == (0.0, 5, None)
    assert config.early_stopping_patience == 2
    defaults = fit_config(_flags())
    assert defaults == FitConfig("minilm", defaults.stages, "o")


@pytest.mark.parametrize(("settings", "said"), [
    ({"max_length": 4}, "r.json: max_length: must be >= 8, got 4"),
    ({"seed": -1}, "r.json: seed: must be in [0, 2**32), got -1"),
    ({"weight_decay": -0.1}, "r.json: weight_decay: must be >= 0, got -0.1"),
    ({"lr": float("inf")}, "r.json: lr: must be a finite number > 0, got inf"),
    ({"prompt": "qurey"}, "r.json: prompt: Invalid prompt 'qurey'. Valid: None, query, passage"),
    ({"stages": [{"train": ["sts/train.jsonl"], "lr": 0}]}, "stages[0].lr: must be > 0, got 0"),
])
def test_a_recipe_is_held_to_the_flags_rules(tmp_path, root, settings, said):
    """What the flags refused and a recipe let through to the trainer, or to a traceback."""
    with pytest.raises(TrainingError) as info:
        _recipe(tmp_path, root, **settings)
    assert said in str(info.value)


@pytest.mark.parametrize(("stage", "said"), [
    (Stage(("a",), batch_size=0), "Stage.batch_size: must be >= 1, got 0"),
    (Stage(("a",), learning_rate=-1.0), "Stage.learning_rate: must be > 0, got -1.0"),
    (Stage(tasks=(Task(("a",), max_rows=0),)), "Task.max_rows: must be >= 1, got 0"),
    (Stage(("a",), epochs=0), "--epochs: must be > 0 and <= 1000, got 0"),
])
def test_a_library_stage_is_held_to_the_same_rules(stage, said):
    with pytest.raises(TrainingError, match=None) as info:
        check_stage(stage)
    assert said in str(info.value)


def test_library_settings_are_named_by_their_flag():
    config = FitConfig("minilm", (Stage(("a",)),), "o", warmup_ratio=1.0, pooling="sum")
    with pytest.raises(TrainingError, match=r"--pooling: Invalid pooling mode 'sum'"):
        check_settings(config)
    with pytest.raises(TrainingError, match=r"--warmup: must be in \[0, 1\), got 1.0"):
        check_settings(FitConfig("minilm", (Stage(("a",)),), "o", warmup_ratio=1.0))


@pytest.mark.parametrize("field,text,value", [
    ("batch_size", " 16 ", 16), ("learning_rate", "5e-5", 5e-5), ("warmup_ratio", "0", 0.0),
    ("max_rows", "", None), ("max_rows", "200", 200), ("seed", "+7", 7),
])
def test_a_typed_value_is_read_by_its_settings_rule(field, text, value):
    """What a form field holds becomes the value the flag would give, by the one table."""
    from training.settings import BY_FIELD

    got = BY_FIELD[field].rule.parse(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("field,text,said", [
    ("batch_size", "1.0", "'1.0' is not a whole number"),
    ("batch_size", "1e3", "'1e3' is not a whole number"),
    ("batch_size", "", "'' is not a whole number"),
    ("batch_size", "0", "must be >= 1, got 0"),
    ("learning_rate", "two", "'two' is not a number"),
    ("learning_rate", "0", "must be > 0, got 0.0"),
    ("learning_rate", "inf", "must be a finite number > 0, got inf"),
    ("warmup_ratio", "1", "must be in [0, 1), got 1.0"),
    ("seed", "9" * 40, "got an integer of 40 digits"),
])
def test_a_typed_value_its_rule_refuses_says_why(field, text, said):
    from training.settings import BY_FIELD

    with pytest.raises(ValueError) as caught:
        BY_FIELD[field].rule.parse(text)
    assert said in str(caught.value)
