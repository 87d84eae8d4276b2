"""The output folder of a training run: what may be written where, and when it may be reused.

Layout: the final sentence-transformers model at the top (so `load_encoder(out)` works),
beside `run.json` (the config; marks the folder as ours), `metrics.json`, `training_log.jsonl`,
`train.log`, `curve.png`, `data_report.json` and the model card `README.md`;
`checkpoints/stage-N/` while training.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import TrainingError

RUN_FILE = "run.json"
RUN_FORMAT = 1


def prepare_out(out: str | Path, identity: dict[str, Any], *, resume: bool) -> Path:
    """Check `out` can take this run; create it. Raises `TrainingError` when it holds something
    else, a finished or different run, or (with `resume`) nothing to resume."""
    path = Path(out).expanduser()
    if path.exists() and not path.is_dir():
        raise TrainingError(f"--out {path} is a file; pass a folder")
    entries = [p.name for p in path.iterdir()] if path.is_dir() else []
    marker = path / RUN_FILE
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
    if resume:
        raise TrainingError(f"--resume: {path} holds no training run to continue")
    path.mkdir(parents=True, exist_ok=True)
    return path


def read_run(path: Path) -> dict[str, Any]:
    data = json.loads((path / RUN_FILE).read_text(encoding="utf-8"))
    if data.get("format") != RUN_FORMAT:
        raise TrainingError(f"{path / RUN_FILE}: unknown run format {data.get('format')!r}")
    return data


def stage_dir(out: Path, index: int) -> Path:
    return out / "checkpoints" / f"stage-{index}"
