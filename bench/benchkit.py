"""Helpers shared by the benchmarks: data location, medians, result files."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
if str(REPO) not in sys.path:  # `python bench/x.py` from a worktree: its packages, not the
    sys.path.insert(1, str(REPO))  # editable install's (bench/ itself stays first)


def data_dir() -> Path:
    from common.home import data_root

    path = data_root()
    if not path.is_dir():
        raise SystemExit(f"shared data not found at {path}; set BERTSCOPE_DATA")
    return path


def median(values: list[float]) -> float:
    return statistics.median(values)


def machine() -> dict:
    info = {"cpus": os.cpu_count(), "python": platform.python_version(), "node": platform.node()}
    try:  # the CPU model and whether it has int8 / bf16 dot products (VNNI, AMX, AVX-512 BF16)
        text = Path("/proc/cpuinfo").read_text()
        model = next(x for x in text.splitlines() if x.startswith("model name"))
        flags = set(next(x for x in text.splitlines() if x.startswith("flags")).split())
        info["cpu"] = model.split(":", 1)[1].strip()
        info["simd"] = sorted(f for f in flags if f in {"avx2", "avx512f", "avx512_vnni",
                                                         "avx_vnni", "avx512_bf16", "amx_int8"})
    except (OSError, StopIteration):
        pass
    import subprocess

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                          text=True).stdout.strip()
    if head:
        info["commit"] = head  # the code measured (uncommitted changes aside)
    return info


def write_results(name: str, payload: dict, table: str) -> tuple[Path, Path]:
    RESULTS.mkdir(parents=True, exist_ok=True)
    json_path, md_path = RESULTS / f"{name}.json", RESULTS / f"{name}.md"
    json_path.write_text(json.dumps(payload, indent=2, ensure_ascii=False))
    md_path.write_text(table)
    return json_path, md_path
