"""Index builds as jobs (`common.jobs`): `python -m indexer rebuild|build ...` in its own process,
with its progress in the job's progress file (`cli_progress.StageBar`). Both commands continue
an interrupted build from the shards it encoded, so resuming is running them again."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from common.home import REPO
from common.jobs import JobSpec


def indexer_command(*args: str) -> tuple[str, ...]:
    return (sys.executable, "-m", "indexer", *args)


def rebuild_job(source: str | Path, out: str | Path, model: str, flags: Sequence[str] = (),
                *, title: str | None = None) -> JobSpec:
    """Re-index `source`'s documents with `model` into `out`."""
    argv = indexer_command("rebuild", str(source), "--model", model, "--out", str(out), *flags)
    return JobSpec("rebuild", f"index:{Path(out).resolve()}",
                   title or f"Re-index {Path(source).name} with {Path(model).name}", argv,
                   resume_argv=argv, cwd=str(REPO),
                   outputs={"index": str(out), "source": str(source)})


def build_job(corpus: str | Path, out: str | Path, model: str, flags: Sequence[str] = (),
              *, title: str | None = None) -> JobSpec:
    """Build an index of `corpus` with `model` into `out`."""
    argv = indexer_command("build", "--corpus", str(corpus), "--model", model, "--out", str(out),
                           *flags)
    return JobSpec("build", f"index:{Path(out).resolve()}",
                   title or f"Index {Path(corpus).name} with {Path(model).name}", argv,
                   resume_argv=argv, cwd=str(REPO), outputs={"index": str(out)})
