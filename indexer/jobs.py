"""Index builds as jobs (`common.jobs`): `python -m indexer rebuild|build|sync|default ...` in
its own process, with its progress in the job's progress file (`cli_progress.StageBar`). Each
command continues an interrupted build from what it saved, so resuming is running it again."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

from common.home import REPO
from common.jobs import JobSpec

_SUMMARY = re.compile(r"^added \d+, updated \d+, removed \d+, unchanged \d+")


def indexer_command(*args: str) -> tuple[str, ...]:
    return (sys.executable, "-m", "indexer", *args)


def rebuild_job(source: str | Path, out: str | Path, model: str, flags: Sequence[str] = (),
                *, title: str | None = None) -> JobSpec:
    """Re-index `source`'s documents with `model` into `out`."""
    argv = indexer_command("rebuild", str(source), "--model", model, "--out", str(out), *flags)
    return JobSpec("rebuild", f"index:{Path(out).resolve()}",
                   title or f"Re-index {Path(source).name} with {Path(model).name}", argv,
                   resume_argv=argv, cwd=str(REPO),
                   outputs={"index": str(out), "source": str(source), "model": str(model)})


def build_job(corpus: str | Path, out: str | Path, model: str, flags: Sequence[str] = (),
              *, title: str | None = None) -> JobSpec:
    """Build an index of `corpus` with `model` into `out`."""
    argv = indexer_command("build", "--corpus", str(corpus), "--model", model, "--out", str(out),
                           *flags)
    return JobSpec("build", f"index:{Path(out).resolve()}",
                   title or f"Index {Path(corpus).name} with {Path(model).name}", argv,
                   resume_argv=argv, cwd=str(REPO), outputs={"index": str(out)})


def sync_job(folder: str | Path, out: str | Path, model: str | None = None,
             flags: Sequence[str] = (), *, title: str | None = None) -> JobSpec:
    """Bring the index `out` up to date with the documents of `folder` (built on the first
    run, with `model`). Resuming is running it again: it does what is left."""
    argv = indexer_command("sync", str(folder), str(out),
                           *(("--model", model) if model else ()), *flags)
    return JobSpec("sync", f"index:{Path(out).resolve()}",
                   title or f"Sync {Path(out).name} with {Path(folder).name}", argv,
                   resume_argv=argv, cwd=str(REPO),
                   outputs={"index": str(out), "folder": str(folder)})


def failed_files(log: str) -> list[tuple[str, str]]:
    """(file, reason) of each `failed FILE: reason` line a sync printed (its job's log)."""
    out = []
    for line in log.splitlines():
        if line.startswith("failed ") and ": " in line:
            file, _, reason = line[len("failed "):].partition(": ")
            out.append((file, reason))
    return out


def sync_summary(log: str) -> str | None:
    """The summary line a sync printed last ("added 14, updated 0, removed 0, unchanged 0",
    with "(built INDEX)" on its first run), or None."""
    found = [ln.strip() for ln in log.splitlines() if _SUMMARY.match(ln.strip())]
    return found[-1] if found else None


def noted_files(log: str) -> list[tuple[str, str]]:
    """(file, note) of each `note FILE: note` line a sync printed: files read with something
    left out (a page under the OCR confidence floor, front matter naming reserved fields)."""
    out = []
    for line in log.splitlines():
        if line.startswith("note ") and ": " in line:
            file, _, note = line[len("note "):].partition(": ")
            out.append((file, note))
    return out


def default_job(lang: str, out: str | Path) -> JobSpec:
    """Build the default index of `lang` (`indexer.default`) into `out` when absent."""
    from .default import default_corpus

    corpus = default_corpus(lang)
    argv = indexer_command("default", "--lang", lang, "--out", str(out))
    return JobSpec("default", f"index:{Path(out).resolve()}",
                   f"Build the default {lang} index ({corpus.folder}, {corpus.model})", argv,
                   resume_argv=argv, cwd=str(REPO), outputs={"index": str(out)})
