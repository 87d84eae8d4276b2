"""Read a corpus — JSONL, CSV/TSV, Parquet, a folder of .txt/.md, BEIR corpus.jsonl, anything
`datasets` loads — into `Document`s, reporting (never dropping silently) every row it skips."""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import check_path
from common.jsonl import jsonl_objects

from .documents import Document, SkippedRow
from .errors import CorpusError

FORMATS = ("jsonl", "csv", "tsv", "parquet", "folder", "json", "datasets")
ON_ERROR = ("skip", "fail")
_EXT = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet",
        ".json": "json", ".arrow": "datasets"}
_TEXT_FILES = (".txt", ".md")
DEFAULT_TITLE = "title"


@dataclass(frozen=True)
class CorpusOptions:
    """Which fields hold what. `id_field=None` tries `id` then `_id`, else generates an id from
    the row's content (`auto-<hash>`: stable, and two different rows never share one, whatever
    file they come from); `metadata_fields=None` keeps every other scalar field. A field named
    here that no row has is an error (a typo would otherwise go unnoticed); so is a row without
    a named `id_field` (skipped and reported)."""

    id_field: str | None = None
    text_field: str = "text"
    title_field: str | None = DEFAULT_TITLE  # None or "": no title
    metadata_fields: tuple[str, ...] | None = None
    format: str | None = None  # None: from the extension
    on_error: str = "skip"

    def __post_init__(self) -> None:
        for name in ("id_field", "title_field", "format"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"CorpusOptions.{name} must be a string or None, got {value!r}")
        if not isinstance(self.text_field, str) or not self.text_field.strip():
            raise TypeError(f"CorpusOptions.text_field must be a field name, "
                            f"got {self.text_field!r}")
        fields = self.metadata_fields
        if isinstance(fields, str):
            raise TypeError(f"CorpusOptions.metadata_fields must be a list of field names, not "
                            f"a string: use ({fields!r},)")
        if fields is not None:
            if not isinstance(fields, (list, tuple, set, frozenset)) or not all(
                    isinstance(f, str) and f.strip() for f in fields):
                raise TypeError(f"CorpusOptions.metadata_fields must be a list of non-empty "
                                f"field names, got {fields!r}")
            object.__setattr__(self, "metadata_fields", tuple(fields))
        if self.on_error not in ON_ERROR:
            raise CorpusError(f"Invalid on_error {self.on_error!r}. Valid: {', '.join(ON_ERROR)}")
        if self.format is not None and self.format not in FORMATS:
            raise CorpusError(f"Invalid corpus format {self.format!r}. "
                              f"Valid: {', '.join(FORMATS)}")
        if self.id_field is not None and not self.id_field.strip():
            raise CorpusError("CorpusOptions.id_field is empty: name a field, or None for id/_id")

    def named_fields(self) -> dict[str, str]:
        """{field: role} for every field the user named (defaults that may be absent excluded)."""
        named = {self.text_field: "text_field"}
        if self.id_field:
            named[self.id_field] = "id_field"
        if self.title_field and self.title_field != DEFAULT_TITLE:
            named[self.title_field] = "title_field"
        for f in self.metadata_fields or ():
            named[f] = "metadata_fields"
        return named


@dataclass
class CorpusReport:
    documents: list[Document]
    skipped: list[SkippedRow] = field(default_factory=list)
    duplicates: int = 0  # rows whose id was seen before; the later row won
    rows: int = 0

    def unusable(self, source: str) -> CorpusError:
        """The error for a corpus that gave no document: why, with the first bad row."""
        if not self.rows and not self.skipped:
            return CorpusError(f"{source} holds no rows: an empty file?")
        first = self.skipped[0] if self.skipped else None
        where = f"; first: {first.file}:{first.line}: {first.reason}" if first else ""
        return CorpusError(f"no usable documents in {source}: all {len(self.skipped)} rows "
                           f"were skipped{where}")


def read_corpus(path: str | Path, options: CorpusOptions | None = None) -> CorpusReport:
    """Read every row of `path`; bad rows are skipped and listed (`on_error="fail"`: raise)."""
    opts = options if options is not None else CorpusOptions()
    if not isinstance(opts, CorpusOptions):
        raise TypeError(f"options must be a CorpusOptions, got {type(opts).__name__}")
    path = check_path(path, "corpus", "a corpus file or folder path")
    if not path.exists():
        raise CorpusError(f"corpus not found: {path}")
    fmt = opts.format or _detect(path)
    if fmt not in FORMATS:
        raise CorpusError(f"Invalid corpus format {fmt!r}. Valid: {', '.join(FORMATS)}")
    report = CorpusReport(documents=[])
    by_id: dict[str, Document] = {}
    seen: set[str] = set()  # every field name some row has
    scalars: set[str] = set()  # ... with a value metadata can hold
    for where, line, row in _ROWS[fmt](path, report, opts):
        report.rows += 1
        seen.update(row)
        scalars.update(k for k, v in row.items() if _scalar(v))
        doc = _to_document(row, where, line, opts, report)
        if doc is None:
            continue
        if doc.id in by_id:
            report.duplicates += 1
            del by_id[doc.id]  # the later row wins, at its own position
        by_id[doc.id] = doc
    report.documents = list(by_id.values())
    if report.rows:
        _check_named_fields(opts, seen, scalars, path, _format_hint(path, fmt))
    return report


def _check_named_fields(opts: CorpusOptions, seen: set[str], scalars: set[str],
                        path: Path, hint: str = "") -> None:
    absent = {f: role for f, role in opts.named_fields().items() if f not in seen}
    if absent:
        named = ", ".join(f"{f!r} ({role})" for f, role in absent.items())
        fields = ", ".join(sorted(str(f)[:40] for f in seen)[:20]) or "no fields"
        fields += ", …" if len(seen) > 20 else ""
        raise CorpusError(f"no row of {path.name} has the field {named}; its rows have: "
                          f"{fields}{hint}")
    nested = [f for f in opts.metadata_fields or () if f not in scalars]
    if nested:
        raise CorpusError(f"metadata field {', '.join(map(repr, nested))} of {path.name} holds "
                          "lists or objects in every row: metadata fields hold strings, numbers "
                          "or booleans")


def _format_hint(path: Path, fmt: str) -> str:
    """When `format=` overrides what the file name says, a field the reader cannot find is
    most likely that choice: say so."""
    named = None if path.is_dir() else _EXT.get(path.suffix.lower())
    if named is None or named == fmt:
        return ""
    return (f" (read as {fmt} as asked, but the file name says {named}: drop --format / "
            f"format= to read it as {named})")


def _detect(path: Path) -> str:
    if path.is_dir():
        if (path / "dataset_info.json").exists() or (path / "state.json").exists():
            return "datasets"
        if (path / "corpus.jsonl").is_file():
            return "jsonl"  # a BEIR folder
        return "folder"
    fmt = _EXT.get(path.suffix.lower())
    if fmt is None:
        raise CorpusError(
            f"cannot tell the format of {path.name}: use a .jsonl/.csv/.tsv/.parquet/.json file, "
            f"a folder of .txt/.md files, or pass format= (one of {', '.join(FORMATS)})"
        )
    return fmt


def _skip(report: CorpusReport, opts: CorpusOptions, where: str, line: int, reason: str) -> None:
    if opts.on_error == "fail":
        raise CorpusError(f"{where}:{line}: {reason} (use on_error='skip' to skip bad rows)")
    report.skipped.append(SkippedRow(where, line, reason))


# -- row sources: each yields (file, line, dict) and reports rows it cannot parse -------------
Rows = Iterator[tuple[str, int, dict[str, Any]]]


def _jsonl_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    if path.is_dir():
        path = path / "corpus.jsonl"
    for n, row in jsonl_objects(path):
        if isinstance(row, str):
            _skip(report, opts, path.name, n, row)
            continue
        yield path.name, n, row


def _decoded_lines(path: Path, report: CorpusReport, opts: CorpusOptions, bad: set[int]):
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                _skip(report, opts, path.name, n, f"not UTF-8 ({exc.reason} at byte {exc.start})")
                bad.add(n)
                yield "\n"  # keeps csv's line count aligned with the file


def _delimited_rows(path: Path, report: CorpusReport, opts: CorpusOptions, delimiter: str) -> Rows:
    bad: set[int] = set()
    reader = csv.reader(_decoded_lines(path, report, opts, bad), delimiter=delimiter)
    header = next(reader, None)
    if not header:
        raise CorpusError(f"{path.name} is empty: a CSV/TSV corpus needs a header row")
    header = [h.strip() for h in header]
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            _skip(report, opts, path.name, reader.line_num, f"malformed row ({exc})")
            continue
        line = reader.line_num
        if not values or line in bad:
            continue
        if len(values) != len(header):
            _skip(report, opts, path.name, line,
                  f"{len(values)} fields where the header has {len(header)}")
            continue
        yield path.name, line, dict(zip(header, values, strict=True))


def _csv_rows(path, report, opts) -> Rows:
    return _delimited_rows(path, report, opts, ",")


def _tsv_rows(path, report, opts) -> Rows:
    return _delimited_rows(path, report, opts, "\t")


def _parquet_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    import pyarrow.parquet as pq

    n = 0
    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=4096)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...: the message matters
        raise CorpusError(f"{path.name} is not a readable Parquet file ({exc})") from exc
    for batch in batches:
        for row in batch.to_pylist():
            n += 1
            yield path.name, n, row


def _folder_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in _TEXT_FILES)
    if not files:
        raise CorpusError(f"no .txt or .md files under {path}")
    for file in files:
        rel = file.relative_to(path).as_posix()
        try:
            text = file.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            _skip(report, opts, rel, 0, f"not UTF-8 ({exc.reason} at byte {exc.start})")
            continue
        title = ""
        if file.suffix.lower() == ".md":
            first = text.lstrip().split("\n", 1)[0]
            title = first.lstrip("#").strip() if first.startswith("#") else ""
        yield rel, 0, {"id": rel, "text": text, "title": title or file.stem}


def _datasets_rows(path: Path, report: CorpusReport, opts: CorpusOptions) -> Rows:
    import datasets

    try:
        if path.is_dir():
            ds = datasets.load_from_disk(str(path))
        else:
            builder = {".json": "json", ".arrow": "arrow"}.get(path.suffix.lower(), "json")
            ds = datasets.load_dataset(builder, data_files=str(path), split="train")
    except Exception as exc:  # datasets raises many types; the message is what matters
        raise CorpusError(f"datasets could not load {path}: {exc}") from exc
    if isinstance(ds, datasets.DatasetDict):
        ds = ds[next(iter(ds))]
    for n, row in enumerate(ds, start=1):
        yield path.name, n, row


_ROWS = {"jsonl": _jsonl_rows, "csv": _csv_rows, "tsv": _tsv_rows, "parquet": _parquet_rows,
         "folder": _folder_rows, "json": _datasets_rows, "datasets": _datasets_rows}


# -- row -> Document ------------------------------------------------------------------------
def generated_id(row: dict[str, Any]) -> str:
    """`auto-<16 hex>`: a hash of the whole row, so re-reading gives the same id and rows from
    different files (even files with the same name) never share one unless they are identical."""
    canonical = json.dumps(row, sort_keys=True, ensure_ascii=False, default=str)
    return "auto-" + hashlib.blake2b(canonical.encode(), digest_size=8).hexdigest()


def _scalar(value: Any) -> bool:
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return isinstance(value, (str, int, float, bool))


def _to_document(
    row: dict[str, Any], where: str, line: int, opts: CorpusOptions, report: CorpusReport
) -> Document | None:
    text = row.get(opts.text_field)
    if text is None:
        _skip(report, opts, where, line, f"missing text field {opts.text_field!r}")
        return None
    if not isinstance(text, str):
        _skip(report, opts, where, line, f"text field {opts.text_field!r} is not a string")
        return None
    if not text.strip():
        _skip(report, opts, where, line, "empty text")
        return None
    id_fields = (opts.id_field,) if opts.id_field else ("id", "_id")
    doc_id = next((row[f] for f in id_fields if row.get(f) not in (None, "")), None)
    if doc_id is not None and not _scalar(doc_id):
        _skip(report, opts, where, line, f"id field {id_fields[0]!r} holds "
              f"{type(doc_id).__name__}, not a string or number")
        return None
    if doc_id is None and opts.id_field:
        _skip(report, opts, where, line, f"missing id field {opts.id_field!r}")
        return None
    doc_id = str(doc_id) if doc_id is not None else generated_id(row)
    title = row.get(opts.title_field) if opts.title_field else None
    title = title if isinstance(title, str) else ""
    taken = {opts.text_field, opts.title_field, *id_fields}
    names = opts.metadata_fields if opts.metadata_fields is not None else [
        k for k in row if k not in taken
    ]
    metadata = {k: row[k] for k in names if k in row and _scalar(row[k])}
    return Document(doc_id, text, title, metadata)
