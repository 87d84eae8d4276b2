"""Helpers shared by the benchmarks: data location, medians, result files."""

from __future__ import annotations

import json
import os
import platform
import statistics
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


def data_dir() -> Path:
    path = Path(os.environ.get("BERTSCOPE_DATA", REPO.parent / "shared" / "data"))
    if not path.is_dir():
        raise SystemExit(f"shared data not found at {path}; set BERTSCOPE_DATA")
    return path


def median(values: list[float]) -> float:
    return statistics.median(values)


def machine() -> dict:
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "node": platform.node()}


def write_results(name: str, payload: dict, table: str) -> tuple[Path, Path]:
    RESULTS.mkdir(parents=True, exist_ok=True)
    json_path, md_path = RESULTS / f"{name}.json", RESULTS / f"{name}.md"
    json_path.write_text(json.dumps(payload, indent=2, ensure_ascii=False))
    md_path.write_text(table)
    return json_path, md_path
