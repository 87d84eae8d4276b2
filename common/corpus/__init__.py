"""Corpus readers that the indexer and training share (below both: neither imports the other).

JSONL (a BEIR folder's corpus.jsonl too), CSV/TSV, Parquet, a folder of .txt/.md files, and
anything `datasets` loads, read into `Document`s; every row skipped is reported as a
`SkippedRow` (file, line, reason), never dropped silently. Not imported by `common` itself:
`import common.corpus` where it is needed (pyarrow and datasets load only when a format needs
them).

    read_corpus(path, CorpusOptions(...)) -> CorpusReport(documents, skipped, duplicates, rows)
    skipped_lines(report.skipped, report.duplicates) -> the lines a CLI prints
"""

from .options import DEFAULT_TITLE, FORMATS, ON_ERROR, CorpusOptions
from .read import generated_id, read_corpus
from .records import CorpusError, Document, SkippedRow
from .report import CorpusReport, skipped_lines
from .rows import EXTENSIONS, TEXT_FILES, detect_format

__all__ = [
    "DEFAULT_TITLE",
    "EXTENSIONS",
    "FORMATS",
    "ON_ERROR",
    "TEXT_FILES",
    "CorpusError",
    "CorpusOptions",
    "CorpusReport",
    "Document",
    "SkippedRow",
    "detect_format",
    "generated_id",
    "read_corpus",
    "skipped_lines",
]
