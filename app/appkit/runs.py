"""Read what a training run left beside its model (metrics.json), or None where it left none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_metrics(folder: Path) -> dict[str, Any] | None:
    """The run's metrics.json, or None where the folder has none or it is unreadable."""
    path = folder / "metrics.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
