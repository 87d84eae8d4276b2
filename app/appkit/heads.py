"""Pretraining heads on the page: say whether a model has them and why not (the library's
`encoder.heads_status`), and train a bundled model's once, with a progress bar — never silently:
the page asks first, and says before the button that the training runs inside this page."""

from __future__ import annotations

import streamlit as st

from .progress import ProgressBar


def offer_bundled_training(encoder, status) -> None:
    """A button that trains the bundled model's heads now, with progress; reruns when done."""
    from encoder import HeadsState
    from training.mlm.bundled import RECIPES

    recipe = RECIPES[encoder.name]
    why = (f"**{encoder.name}'s cached MLM head was trained for another version of the model.**"
           if status.state is HeadsState.OTHER_VERSION
           else f"**{encoder.name} ships without an MLM head.**")
    st.info(f"{why} BERTScope trains one once — head only, the encoder frozen — on "
            f"{recipe.description}, text its packages ship: {recipe.steps} steps ({recipe.minutes}"
            "; the bar below shows the time left on this machine), then cached in "
            "`$BERTSCOPE_HOME/heads`.")
    st.warning(
        "The training runs inside this page, while it is open: leaving the page or changing "
        "any control on it stops the training. What it saved (a checkpoint every 50 steps) is "
        "kept, and pressing the button again continues from there. To train without keeping "
        f"the page open, run `python -m training mlm-heads {encoder.name}` in a terminal "
        "instead, then reload this page.")
    if not st.button(f"Train {encoder.name}'s MLM + NSP heads now", key="train-heads"):
        return
    from training.mlm.bundled import ensure_bundled_heads

    bar = ProgressBar("Training the heads (stay on this page until it finishes)", unit="steps",
                      start="Reading the text and scoring the untrained head…")
    ensure_bundled_heads(encoder.name, progress=bar, fingerprint=encoder.fingerprint)
    bar.finish("Heads trained and cached.")
    st.rerun()


def models_with_heads(config, exclude: str) -> dict[str, str]:
    """Label -> model key of every model whose heads are ready: bundled ones with cached heads,
    and trained folders (under the runs root) that carry heads."""
    from encoder import BUNDLED
    from encoder.heads import bundled_heads_dir, has_heads

    from .discovery import find_trained_models, label

    options = {f"{name} (bundled, BERTScope's heads)": name for name in BUNDLED
               if has_heads(bundled_heads_dir(name))}
    for folder in find_trained_models(config.runs_root):
        if has_heads(folder):
            options[f"{label(folder, config.runs_root)} (trained)"] = str(folder)
    return {k: v for k, v in options.items() if v != exclude}


def stop_without_heads(encoder, status) -> None:
    """Explain why the heads are not ready (`status`: `encoder.heads_status`'s answer) and, where
    BERTScope's bundled-head training fixes it, offer it; stop the page."""
    if status.trainable:
        offer_bundled_training(encoder, status)
    else:
        st.info(status.reason)
    st.stop()
