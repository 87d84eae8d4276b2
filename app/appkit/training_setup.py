"""The Training page's form: what to train on (a shipped recipe, or one data file on the server or
uploaded, its kind and loss said by the library), the base model, the settings with the
recipe's defaults (one widget per setting of `training.settings`), the run's folder under the
runs root, and Start: a `fit` job (`training.jobs.fit_job`) in its own process."""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from .config import AppConfig
from .confine import confine_path, data_folder_problem, server_data_note
from .guard import call_or_stop
from .model_picker import model_label, pick_model
from .uploads import safe_name

SOURCES = ("A shipped recipe", "A data file on the server", "Upload a data file")
DATA_TYPES = ("jsonl", "json", "csv", "tsv", "parquet")


@dataclass(frozen=True)
class Source:
    """What the run trains on: a recipe (its file and config) or one checked data file."""

    name: str  # for the run's folder name
    recipe: Path | None = None
    config: Any = None  # the recipe's FitConfig
    data: Any = None  # training.run_plan.DataCheck
    folds: bool = False  # a cross-validating recipe: its model to ship is OUT/final


@st.cache_data(show_spinner="Reading the recipe…")
def _recipe(path: str, mtime: float, data_root: str):
    from training.run_plan import check_recipe

    recipe = check_recipe(path, data_root)
    return recipe.config, recipe.cross_validation is not None


@st.cache_data(show_spinner="Reading the data file…")
def _data(path: str, mtime: float):
    from training.run_plan import check_data

    return check_data(path)


def keep_upload(name: str, data: bytes, limit_mb: int) -> Path:
    """An uploaded training file kept under `$BERTSCOPE_HOME/training-data` (the job reads it in
    its own process, later), named by its content so the same upload is kept once."""
    from common import bertscope_home

    if len(data) > limit_mb * 2**20:
        raise ValueError(f"{name} is {len(data) / 2**20:.1f} MB; the upload limit is "
                         f"{limit_mb} MB.")
    if not data:
        raise ValueError(f"{name} is empty.")
    path = bertscope_home("training-data") / \
        f"{hashlib.sha256(data).hexdigest()[:12]}-{safe_name(name)}"
    if not path.exists():
        path.write_bytes(data)
    return path


def upload_help() -> None:
    """The fields each kind of file needs, an example row of each, and example files."""
    from training.data_examples import EXAMPLES, example_jsonl, kinds_table

    st.markdown("Each row is one training example; its column names say its kind (JSON lines, "
                "CSV, TSV or Parquet):")
    st.table(pd.DataFrame(kinds_table()), hide_index=True)  # wraps: the example rows fit
    for where, kind in zip(st.columns(len(EXAMPLES)), EXAMPLES, strict=True):
        where.download_button(f"Example {kind} file", example_jsonl(kind),
                              file_name=f"example-{kind}.jsonl", mime="application/jsonl",
                              key=f"train-example-{kind}")


def choose_source(config: AppConfig) -> Source:
    """The recipe or data file, described; stops the page until one is usable."""
    from training.run_plan import shipped_recipes

    how = st.radio("Train on", SOURCES, horizontal=True, key="train-source")
    if how == SOURCES[0]:
        from training.recipe_data import missing_text
        from training.run_plan import missing_recipe_data

        recipes = shipped_recipes()
        name = st.selectbox("Recipe (recipes/)", list(recipes), key="train-recipe")
        st.caption("A recipe trains on public data sets it expects in the data folder "
                   f"`{config.data_root}` (BERTSCOPE_DATA; a fresh clone of the repository has "
                   "none: the recipe says what to get where it is missing).")
        path = recipes[name]
        missing = call_or_stop(missing_recipe_data, path, config.data_root,
                               what=f"Cannot use recipe {name}")
        if missing:
            st.warning(missing_text(name, missing, config.data_root))
            st.button("Upload a data file instead", key="train-upload-instead",
                      on_click=lambda: st.session_state.update({"train-source": SOURCES[2]}))
            st.stop()
        fit_config, folds = call_or_stop(_recipe, str(path), path.stat().st_mtime,
                                         str(config.data_root), what=f"Cannot use recipe {name}")
        from training.run_plan import recipe_about, stage_rows

        st.caption(recipe_about(path))
        if folds:
            st.info(f"{name} cross-validates first: one model per fold, each scored on the "
                    "queries it never saw (the recipe's estimate, in crossval.json); then it "
                    "trains the model to ship on every query, in the run folder's `final/`: "
                    "the model this page re-indexes with. It takes the longest of the recipes "
                    "(see its description above).")
        st.dataframe(pd.DataFrame(stage_rows(fit_config)), hide_index=True)
        return Source(name, recipe=path, config=fit_config, folds=folds)
    if how == SOURCES[1]:
        if problem := data_folder_problem(config.data_root):
            st.warning(problem)
        else:
            st.caption(server_data_note(config.data_root, "training files"))
        typed = st.text_input(f"Path inside {config.data_root}", key="train-path",
                              help="Scored or binary pairs, NLI pairs or triplets: .jsonl, "
                                   ".csv, .tsv or .parquet with named columns.")
        if not typed.strip():
            st.info("Type the path of a training file, or pick a recipe.")
            st.stop()
        path = call_or_stop(confine_path, config.data_root, typed)
    else:
        upload_help()
        upload = st.file_uploader(f"Training file (up to {config.upload_limit_mb} MB)",
                                  type=list(DATA_TYPES), key="train-upload",
                                  max_upload_size=config.upload_limit_mb)
        if upload is None:
            st.info("Upload a training file, or pick a recipe.")
            st.stop()
        path = call_or_stop(keep_upload, upload.name, upload.getvalue(), config.upload_limit_mb)
    data = call_or_stop(_data, str(path), path.stat().st_mtime, what=f"Cannot train on {path.name}")
    st.markdown(f"**Detected:** {data.sentence()}")
    return Source(Path(path).stem, data=data)


def checked_field(where, name: str, default: Any, rule, *, key: str,
                  help_: str) -> tuple[Any, str | None]:
    """A number typed as text and read by its setting's rule (`training.settings.Rule.parse`);
    a refusal is said right under the field (nothing is replaced behind the user's back).
    (value, the refusal or None)."""
    shown = "" if default is None else str(default)
    text = where.text_input(name, value=shown, key=key, help=help_,
                            placeholder="not set" if rule.nullable else None)
    try:
        return rule.parse(text), None
    except ValueError as exc:
        problem = f"{name}: {exc}"
    where.error(problem)
    return None, problem


def settings_form(defaults: dict[str, Any], *, key: str) -> tuple[dict[str, Any], list[str]]:
    """One widget per setting, opened on `defaults`; (the values as typed, the refusals). Each
    number is checked by its rule and a refused one is said next to its field."""
    from training.pooling import POOLING_MODES
    from training.settings import BY_FIELD

    values: dict[str, Any] = {}
    problems: list[str] = []
    columns = st.columns(4)
    for i, (field, default) in enumerate(defaults.items()):
        s = BY_FIELD[field]
        where, name, help_ = columns[i % 4], s.flag[2:], s.help + (
            f" ({s.rule.text})" if s.rule.text else "")
        wkey = f"{key}-{field}"
        if field == "pooling":
            values[field] = where.selectbox(name, POOLING_MODES, key=wkey, help=help_,
                                            index=POOLING_MODES.index(default))
        elif s.rule.kind is bool:
            values[field] = where.checkbox(name, value=bool(default), key=wkey, disabled=bool(
                default), help=help_ + (" (the recipe sets it; a flag cannot unset it)"
                                        if default else ""))
        else:
            values[field], problem = checked_field(where, name, default, s.rule, key=wkey,
                                                   help_=help_)
            if problem:
                problems.append(problem)
    return values, problems


def run_folder(config: AppConfig, suggested: str) -> Path:
    """The run's folder under the runs root, named by the user (a new name)."""
    base = re.sub(r"[^A-Za-z0-9_-]", "-", suggested)[:56].strip("-") or "run"  # 64 with -N
    name, n = base, 2
    while (config.runs_root / name).exists():
        name, n = f"{base}-{n}", n + 1
    typed = st.text_input(f"Name of the trained model (a folder under {config.runs_root})",
                          value=name, key=f"train-name-{name}").strip()
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}", typed):
        st.error("Name the model with letters, digits, '-' and '_' (up to 64, no spaces).")
        st.stop()
    out = config.runs_root / typed
    if out.exists():
        st.error(f"{out} already exists; choose another name.")
        st.stop()
    return out


@st.cache_data(show_spinner="Working out the dev split…")
def _dev_split(path: str, mtime: float, pairs: int) -> tuple[int, int] | str:
    from training.errors import TrainingError
    from training.run_plan import dev_split_sizes

    try:
        return dev_split_sizes(path, pairs)
    except TrainingError as exc:
        return str(exc)


def dev_split_note(where, path: Path, pairs: int) -> str | None:
    """Under the dev-pairs field, before anything starts: how many pairs each side gets (pairs
    sharing a sentence stay together, so a file that repeats its sentences may give fewer), or
    why no split exists (then the refusal, which keeps Start disabled)."""
    split = _dev_split(str(path), Path(path).stat().st_mtime, pairs)
    if isinstance(split, str):
        where.error(split)
        return "the dev set: see the message under it"
    train, dev = split
    fewer = (f", not {pairs}: pairs that share a sentence stay on one side" if dev != pairs
             else "")
    where.caption(f"Dev set: {dev:,} pairs held out{fewer}; {train:,} left to train on.")
    return None


def plan_and_start(runner, config: AppConfig) -> None:
    """The whole form, then Start: submits the fit job and reruns the page, which shows it."""
    from training.jobs import fit_job
    from training.run_plan import fit_flags, hold_out_dev, setting_defaults

    source = choose_source(config)
    default_model = source.config.model if source.config is not None else "minilm"
    model = pick_model(config, default=default_model, key=f"train-base-{source.name}")
    dev_pairs, epochs, problems = 0, None, []
    if source.data is not None:
        from training.settings import STAGE_SETTINGS

        left, right = st.columns(2)
        epochs, problem = checked_field(right, "epochs", 1.0, STAGE_SETTINGS["epochs"][1],
                                        key="train-epochs", help_="Passes over the training "
                                        f"file ({STAGE_SETTINGS['epochs'][1].text}).")
        problems += [problem] if problem else []
        if source.data.can_hold_out:
            dev_pairs = int(left.number_input(
                "Pairs held out as the dev set", 0, source.data.rows - 1,
                min(500, source.data.rows // 5), key=f"train-dev-{source.name}",
                help="Scored as the run trains (the evaluation curve), never trained on; "
                     "pairs that share a sentence stay on one side. 0: no dev set."))
            if dev_pairs:
                problem = dev_split_note(left, source.data.path, dev_pairs)
                problems += [problem] if problem else []
        else:
            left.caption(f"No dev set: {source.data.kind} data has no scores to rank by, or the "
                         "file is not JSONL (what a held-out part is cut from); the loss curve "
                         "alone is drawn.")
    defaults = setting_defaults(source.config)
    with st.expander("Settings" + (" (the recipe's)" if source.config is not None else ""),
                     expanded=True):
        values, refused = settings_form(defaults, key=f"train-set-{source.name}")
    problems += refused
    if problems:
        st.button("Start training", type="primary", key="train-start", disabled=True,
                  help="Fix the settings marked in red first.")
        st.error(f"Not started: {len(problems)} setting{'s' if len(problems) > 1 else ''} "
                 "refused (" + "; ".join(problems) + ").")
        st.stop()
    out = run_folder(config, f"{model_label(model)}-{source.name}")
    train = dev = None
    if source.data is not None:
        train = source.data.path
    flags = fit_flags(model, recipe=source.recipe, train=train or None, epochs=epochs,
                      data=config.data_root if source.recipe else None, settings=values,
                      defaults=defaults, dev="DEV" if dev_pairs else None)
    command = shlex.join(["python", "-m", "training", "fit", *flags, "--out", str(out)])
    st.caption("Runs as a job in its own process: leaving the page or closing the tab does not "
               "stop it; one job runs at a time on this machine. In a terminal the same is "
               f"`{command}`" + (" (DEV: the held-out part, cut when it starts)."
                                 if dev_pairs else "."))
    if not st.button("Start training", type="primary", key="train-start"):
        st.stop()
    if dev_pairs:
        train, dev = call_or_stop(hold_out_dev, train, dev_pairs, what="Cannot hold out a dev set")
        flags = fit_flags(model, train=train, dev=dev, epochs=epochs, settings=values,
                          defaults=defaults)
    job = call_or_stop(runner.submit, fit_job(out, flags, title=f"Fine-tune "
                                              f"{model_label(model)} on {source.name} into "
                                              f"{out.name}",
                                              model=out / "final" if source.folds else None),
                       what="Cannot start the job")
    st.session_state["train-job"] = job.id
    st.rerun()
