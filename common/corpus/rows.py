"""Row sources, one per corpus format: each yields (file, line, dict) and reports on the
`CorpusReport` the rows it cannot parse. `detect_format` tells the format from the path."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..jsonl import jsonl_objects
from .options import FORMATS, CorpusOptions
from .report import CorpusReport

EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv",
              ".parquet": "parquet", ".json": "json", ".arrow": "datasets"}
TEXT_FILES = (".txt", ".md")  # kept for callers; a folder holds any of DOCUMENT_FILES
DOCUMENT_FILES = (".pdf", ".html", ".htm", ".docx", ".md", ".markdown", ".txt")

Rows = Iterator[tuple[str, int, dict[str, Any]]]


def detect_format(path: Path, error: type[ValueError]) -> str:
    """The format of a corpus file or folder, from its extension or what the folder holds."""
    if path.is_dir():
        if (path / "dataset_info.json").exists() or (path / "state.json").exists():
            return "datasets"
        if (path / "corpus.jsonl").is_file():
            return "jsonl"  # a BEIR folder
        return "folder"
    fmt = EXTENSIONS.get(path.suffix.lower())
    if fmt is None and path.suffix.lower() in DOCUMENT_FILES:
        return "folder"  # one document: read as a folder holding it alone
    if fmt is None:
        raise error(
            f"cannot tell the format of {path.name}: use a .jsonl/.csv/.tsv/.parquet/.json file, "
            f"a folder of documents (PDF, HTML, DOCX, Markdown, text), one such file, or pass "
            f"format= (one of {', '.join(FORMATS)})"
        )
    return fmt


def format_hint(path: Path, fmt: str) -> str:
    """When `format=` overrides what the file name says, a field the reader cannot find is
    most likely that choice: say so."""
    named = None if path.is_dir() else EXTENSIONS.get(path.suffix.lower())
    if named is None or named == fmt:
        return ""
    return (f" (read as {fmt} as asked, but the file name says {named}: drop --format / "
            f"format= to read it as {named})")


def _jsonl_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    if path.is_dir():
        path = path / "corpus.jsonl"
    for n, row in jsonl_objects(path):
        if isinstance(row, str):
            report.skip(opts, path.name, n, row)
            continue
        yield path.name, n, row


def _decoded_lines(path: Path, report: CorpusReport, opts: CorpusOptions, bad: set[int]):
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            try:  # utf-8-sig on the first line: a byte-order mark is no part of the header
                yield raw.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                report.skip(opts, path.name, n,
                            f"not UTF-8 ({exc.reason} at byte {exc.start})")
                bad.add(n)
                yield "\n"  # keeps csv's line count aligned with the file


def _delimited_rows(path: Path, report: CorpusReport, opts: CorpusOptions, delimiter: str) -> Rows:
    bad: set[int] = set()
    reader = csv.reader(_decoded_lines(path, report, opts, bad), delimiter=delimiter)
    header = next(reader, None)
    if not header:
        raise opts.error(f"{path.name} is empty: a CSV/TSV corpus needs a header row")
    header = [h.strip() for h in header]
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            report.skip(opts, path.name, reader.line_num, f"malformed row ({exc})")
            continue
        line = reader.line_num
        if not values or line in bad:
            continue
        if len(values) != len(header):
            report.skip(opts, path.name, line,
                        f"{len(values)} fields where the header has {len(header)}")
            continue
        yield path.name, line, dict(zip(header, values, strict=True))


def _csv_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    return _delimited_rows(path, report, opts, ",")


def _tsv_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    return _delimited_rows(path, report, opts, "\t")


def _parquet_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    import pyarrow.parquet as pq

    n = 0
    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=4096)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...: the message matters
        raise opts.error(f"{path.name} is not a readable Parquet file ({exc})") from exc
    for batch in batches:
        for row in batch.to_pylist():
            n += 1
            yield path.name, n, row


def _datasets_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    import datasets

    try:
        if path.is_dir():
            ds = datasets.load_from_disk(str(path))
        else:
            builder = {".json": "json", ".arrow": "arrow"}.get(path.suffix.lower(), "json")
            ds = datasets.load_dataset(builder, data_files=str(path), split="train")
    except Exception as exc:  # datasets raises many types; the message is what matters
        raise opts.error(f"datasets could not load {path}: {exc}") from exc
    if isinstance(ds, datasets.DatasetDict):
        ds = ds[next(iter(ds))]
    for n, row in enumerate(ds, start=1):
        yield path.name, n, row


ROWS: dict[str, Callable[[Path, CorpusReport, CorpusOptions], Rows]] = {
    "jsonl": _jsonl_rows, "csv": _csv_rows, "tsv": _tsv_rows, "parquet": _parquet_rows,
    "json": _datasets_rows, "datasets": _datasets_rows}
