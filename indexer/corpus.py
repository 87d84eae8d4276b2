"""The indexer's corpus reading: the shared readers of `common.corpus` (JSONL, CSV/TSV, Parquet,
a folder of .txt/.md, BEIR corpus.jsonl, anything `datasets` loads), raising the indexer's
`CorpusError` (an `IndexerError`). Every skipped row is reported, never dropped silently."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from common import corpus as shared
from common.corpus import FORMATS, ON_ERROR, CorpusReport

from .errors import CorpusError

__all__ = ["FORMATS", "ON_ERROR", "CorpusOptions", "CorpusReport", "read_corpus"]


class CorpusOptions(shared.CorpusOptions):
    """Which fields hold what (see `common.corpus.CorpusOptions`); its errors are
    `indexer.CorpusError`s."""

    error: ClassVar[type[ValueError]] = CorpusError


def read_corpus(path: str | Path, options: shared.CorpusOptions | None = None, *,
                progress=None) -> CorpusReport:
    """Read every row of `path`; bad rows are skipped and listed (`on_error="fail"`: raise).
    `progress(files read, files)` after each file of a folder of documents."""
    return shared.read_corpus(path, options if options is not None else CorpusOptions(),
                              progress=progress)
