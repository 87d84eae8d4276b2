"""The documents an adaptation trains on: an index's own (through `python -m indexer export`, a
command, since `training` never imports `indexer`), or a corpus file read by `common.corpus`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from common.corpus import CorpusError, CorpusOptions, read_corpus
from common.home import REPO

from .errors import TrainingError

LAYOUT = "_layout"  # the exported rows' layout (common.documents.LAYOUT_KEY)


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
    # run where the caller is, so a relative --index (or milvus://./x.db) is theirs, not the
    # checkout's; the checkout on the path finds `indexer` where it is not installed
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    done = subprocess.run(command, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": path})
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
    exported = options is None
    options = options or _Options(id_field="id")  # what `indexer export` writes
    try:
        report = read_corpus(path, options)
    except CorpusError as exc:
        raise TrainingError(f"{label}: {exc}") from exc
    if not report.documents:
        raise TrainingError(f"{label}: no documents to adapt to")
    return _with_layouts(path, list(report.documents)) if exported else list(report.documents)


def _with_layouts(path: Path, docs: list) -> list:
    """`docs` with the layout each exported row carries (the sections a document reader
    recorded: `adapt_pairs.layout_sections` pairs each heading with its text); the corpus
    reader keeps only scalar fields, so the export's rows are read again for it."""
    layouts = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if isinstance(row.get(LAYOUT), dict):
                layouts[row["id"]] = row[LAYOUT]
    return [replace(d, metadata={**d.metadata, LAYOUT: layouts[d.id]}) if d.id in layouts
            else d for d in docs]
