"""Pretraining heads on the page: say whether a model has them, and train a bundled model's
once, with a progress bar (never silently: the page asks first)."""

from __future__ import annotations

import time

import streamlit as st


def heads_problem(encoder) -> str | None:
    """None when the encoder's MLM head loads; else the library's sentence saying why not."""
    from encoder.fill_mask import get_heads
    from encoder.heads import NoHeadError

    try:
        get_heads(encoder)
    except NoHeadError as exc:
        return str(exc)
    return None


def offer_bundled_training(encoder) -> None:
    """A button that trains the bundled model's heads now, with progress; reruns when done."""
    from training.mlm.bundled import RECIPES

    recipe = RECIPES[encoder.name]
    st.info(f"**{encoder.name} ships without an MLM head.** BERTScope trains one once — head "
            f"only, the encoder frozen — on {recipe.description}, text its packages ship: "
            f"{recipe.steps} steps, {recipe.minutes} on this machine's CPU, then cached in "
            "`$BERTSCOPE_HOME/heads`. (Or run `python -m training mlm-heads "
            f"{encoder.name}` beforehand.)")
    if not st.button(f"Train {encoder.name}'s MLM + NSP heads now", key="train-heads"):
        return
    from encoder.fill_mask import forget_heads
    from training.mlm.bundled import ensure_bundled_heads

    bar = st.progress(0.0, text="Reading the text and scoring the untrained head…")
    started = time.perf_counter()

    def report(step: int, total: int) -> None:
        bar.progress(step / max(total, 1), text=f"Training the heads: step {step} of {total} "
                                                f"({time.perf_counter() - started:.0f} s)")

    ensure_bundled_heads(encoder.name, progress=report)
    forget_heads(encoder)
    bar.progress(1.0, text="Heads trained and cached.")
    st.rerun()


def models_with_heads(config, exclude: str) -> dict[str, str]:
    """Label -> model key of every model whose heads are ready: bundled ones with cached heads,
    and trained folders (under the runs root) that carry `mlm_heads.json`."""
    from encoder import BUNDLED
    from encoder.heads import HEADS_META, bundled_heads_dir, read_meta

    from .discovery import find_trained_models, label

    options = {f"{name} (bundled, BERTScope's heads)": name for name in BUNDLED
               if read_meta(bundled_heads_dir(name)) is not None}
    for folder in find_trained_models(config.runs_root):
        if (folder / HEADS_META).is_file():
            options[f"{label(folder, config.runs_root)} (trained)"] = str(folder)
    return {k: v for k, v in options.items() if v != exclude}


def stop_without_heads(encoder, problem: str) -> None:
    """Explain (and, for a bundled model, offer to train) the missing heads; stop the page."""
    from encoder import BUNDLED

    if encoder.name in BUNDLED and "ships without" in problem:
        offer_bundled_training(encoder)
    else:
        st.info(problem)
    st.stop()
