"""The documents an adaptation trains on: an index's own (through `python -m indexer export`, a
command, since `training` never imports `indexer`), or a corpus file read by `common.corpus`."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from common.corpus import CorpusError, CorpusOptions, read_corpus
from common.home import REPO

from .errors import TrainingError


@dataclass(frozen=True)
class Source:
    documents: list  # common.corpus.Document
    description: str  # "indexes/bbc-news (2,225 documents)"
    model: str | None  # the index's encoder, as `load_encoder` takes it; None for a corpus
    index: str | None = None


def index_documents(index: str | Path, scratch: Path) -> Source:
    """The live documents of the index at `index`, exported by the indexer's own command into
    `scratch`; a missing or damaged index ends as the indexer's one-line error."""
    out = scratch / "documents.jsonl"
    command = [sys.executable, "-m", "indexer", "export", str(index), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise TrainingError(f"--index {index}: {said.removeprefix('error: ')}")
    info = json.loads(done.stdout.strip().splitlines()[-1])
    docs = _read(out, f"--index {index}")
    return Source(docs, f"{index} ({len(docs):,} documents)", info.get("load_as"), str(index))


def corpus_documents(path: str | Path) -> Source:
    docs = _read(Path(path), f"--corpus {path}", _Options())
    return Source(docs, f"{path} ({len(docs):,} documents)", None)


class _Error(CorpusError, TrainingError):
    """A corpus error that the training CLI prints as its own."""


class _Options(CorpusOptions):
    error = _Error


def _read(path: Path, label: str, options: CorpusOptions | None = None) -> list:
    options = options or _Options(id_field="id")  # what `indexer export` writes
    try:
        report = read_corpus(path, options)
    except CorpusError as exc:
        raise TrainingError(f"{label}: {exc}") from exc
    if not report.documents:
        raise TrainingError(f"{label}: no documents to adapt to")
    return list(report.documents)
