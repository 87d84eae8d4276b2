"""The pooling experiment: fine-tune one encoder with `cls`, `mean` and `max` pooling under one seed
and set the dev scores beside the SBERT paper's ablation (STS-B dev, BERT-base)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from .config import FitConfig
from .errors import TrainingError
from .fit import fit
from .pooling import POOLING_MODES, check_pooling

# Reimers & Gurevych 2019, Table 6: STS-B dev Spearman x100 after STS-B training, BERT-base.
SBERT_PAPER = {"mean": 87.44, "cls": 86.62, "max": 69.92}


@dataclass(frozen=True)
class PoolingRow:
    pooling: str
    dev_before: float | None
    dev_after: float | None
    wall_s: float
    out: str


def pooling_experiment(
    config: FitConfig,
    out_root: str | Path,
    *,
    modes: tuple[str, ...] = ("cls", "mean", "max"),
    resume: bool = False,
) -> list[PoolingRow]:
    """Run `config` once per pooling mode into `out_root/<mode>`; the rest of `config` is shared."""
    if isinstance(modes, str) or not modes:
        raise TrainingError(f"--modes must name one or more of {', '.join(POOLING_MODES)}, "
                            f"got {modes!r}")
    if Path(out_root).is_file():
        raise TrainingError(f"--out {out_root} is a file; pass a folder for one run per mode")
    for mode in modes:  # all of them before the first run trains
        check_pooling(mode)
    if len(set(modes)) != len(modes):
        raise TrainingError(f"--modes names a mode twice: {','.join(modes)}")
    rows = []
    for mode in modes:
        run = dataclasses.replace(config, pooling=mode, out=str(Path(out_root) / mode))
        result = fit(run, resume=resume)
        rows.append(
            PoolingRow(
                mode,
                result.dev_before,
                result.dev_after,
                float(result.metrics["wall_s"]),
                str(result.out),
            )
        )
    return rows


def pooling_table(rows: list[PoolingRow]) -> str:
    """Markdown table: ours before and after fine-tuning, and the paper's figure."""
    lines = [
        "| pooling | dev before | dev after fine-tuning | SBERT paper (BERT-base) | wall time |",
        "|---|---|---|---|---|",
    ]
    order = {m: i for i, m in enumerate(POOLING_MODES)}
    for r in sorted(rows, key=lambda r: order.get(r.pooling, 99)):
        lines.append(
            f"| {r.pooling.upper()} | {_fmt(r.dev_before)} | {_fmt(r.dev_after)} | "
            f"{SBERT_PAPER.get(r.pooling, float('nan')):.2f} | {r.wall_s:.0f} s |"
        )
    return "\n".join(lines)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"
