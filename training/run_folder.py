"""The output folder of a training run: what may be written where, and when it may be reused.

Layout: the final sentence-transformers model at the top (so `load_encoder(out)` works),
beside `run.json` (the config; marks the folder as ours), `metrics.json`, `training_log.jsonl`,
`train.log`, `curve.png`, `data_report.json` and the model card `README.md`;
`checkpoints/stage-N/` while training.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path
from typing import Any

from common import check_path

from .checkpoints import complete_checkpoints
from .errors import TrainingError

RUN_FILE = "run.json"
RUN_FORMAT = 1
# What a run writes before its first checkpoint: removed when a run that never trained restarts.
STARTUP_FILES = (RUN_FILE, "train.log", "training_log.jsonl")

log = logging.getLogger("bertscope.training")


def never_trained(path: Path, run: dict[str, Any]) -> bool:
    """True for a run folder whose run stopped before anything could be resumed: no finished
    stage and no complete checkpoint (a model that failed to load, a crash in the first steps,
    a kill while the first checkpoint was written)."""
    if run.get("finished") or run.get("stages_done"):
        return False
    return not any(complete_checkpoints(stage) for stage in (path / "checkpoints").glob("stage-*"))


def _clear_startup(path: Path) -> None:
    for name in STARTUP_FILES:
        (path / name).unlink(missing_ok=True)
    shutil.rmtree(path / "checkpoints", ignore_errors=True)  # no complete checkpoint: see above


def prepare_out(out: str | Path, identity: dict[str, Any], *, resume: bool) -> Path:
    """Check `out` can take this run; create it. Raises `TrainingError` when it holds something
    else, a finished or different run, or (with `resume`) nothing to resume. A run that never
    trained (see `never_trained`) blocks nothing: its files are cleared and the run starts."""
    path = check_path(out, "--out", "a folder path")
    try:
        return _prepare(path, identity, resume)
    except OSError as exc:  # unwritable, read-only, a file in the way
        raise TrainingError(f"--out {path}: cannot use it as the run folder "
                            f"({exc.strerror or exc}); choose a writable folder") from exc


INDEX_FORMAT = re.compile(rb'"format"\s*:\s*"bertscope-index"')


def index_around(path: Path) -> Path | None:
    """The index folder that `path` is in (or is), or None: a folder with an index's
    manifest.json (read at most 4 KiB of it). `training` never imports `indexer`, so the mark is
    read here from the file itself."""
    for folder in (path.resolve(), *path.resolve().parents):
        manifest = folder / "manifest.json"
        try:
            with manifest.open("rb") as fh:
                head = fh.read(4096)
        except OSError:
            continue
        if INDEX_FORMAT.search(head):
            return folder
    return None


def _prepare(path: Path, identity: dict[str, Any], resume: bool) -> Path:
    if path.exists() and not path.is_dir():
        raise TrainingError(f"--out {path} is a file; pass a folder")
    index = index_around(path)
    if index is not None:
        raise TrainingError(f"--out {path} is inside the index {index}: an index's writes (add, "
                            "sync, compact) remove every file of its own that they did not "
                            "write, a model included; choose a folder outside it")
    marker = path / RUN_FILE
    if marker.is_file() and never_trained(path, read_run(path)):
        log.info("%s holds a run that never trained: starting afresh", path)
        _clear_startup(path)
        resume = False  # nothing to continue (with --resume too): start from the beginning
    entries = [p.name for p in path.iterdir()] if path.is_dir() else []
    if entries and not marker.is_file():
        raise TrainingError(
            f"--out {path} is not empty and is not a training run ({', '.join(sorted(entries)[:3])}"
            f"{', ...' if len(entries) > 3 else ''}); choose a new or empty folder"
        )
    if marker.is_file():
        previous = read_run(path)
        if not resume:
            raise TrainingError(
                f"--out {path} already holds a training run; pass --resume to continue it or "
                "choose a new folder"
            )
        if previous.get("identity") != identity:
            raise TrainingError(
                f"--out {path} holds a run with other settings; --resume needs the same model, "
                "data, loss and hyper-parameters"
            )
        if previous.get("finished"):
            raise TrainingError(f"--out {path} holds a finished run; nothing to resume")
        return path
    if resume and not path.is_dir():
        raise TrainingError(f"--resume: {path} does not exist, so there is no run to continue; "
                            "check --out, or drop --resume to start a new run")
    if resume:  # an empty folder: what a start that failed before training leaves
        log.warning("--resume: %s holds nothing to continue (a start that failed?): starting "
                    "the run from the beginning", path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def read_run(path: Path) -> dict[str, Any]:
    try:
        data = json.loads((path / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TrainingError(f"{path / RUN_FILE} is unreadable ({exc}); it marks a training run: "
                            "choose a new --out, or remove that folder") from exc
    if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise TrainingError(f"{path / RUN_FILE}: unknown run format {found!r}")
    return data


def stage_dir(out: Path, index: int) -> Path:
    return out / "checkpoints" / f"stage-{index}"
