"""`read_corpus`: every row of a corpus as a `Document`, bad rows skipped and reported (never
dropped silently), fields named by `CorpusOptions` checked against what the rows hold."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from pathlib import Path
from typing import Any

from ..metadata import kind_problem, value_problem
from ..paths import check_path
from ..text import has_visible_text, lone_surrogate, surrogate_note
from .options import FORMATS, CorpusOptions
from .records import Document, SkippedRow
from .report import CorpusReport
from .rows import ROWS, detect_format, format_hint


def read_corpus(path: str | Path, options: CorpusOptions | None = None, *,
                progress=None) -> CorpusReport:
    """Read every row of `path`; bad rows are skipped and listed (`on_error="fail"`: raise).
    `progress(files read, files)`: after each file of a folder of documents."""
    opts = options if options is not None else CorpusOptions()
    if not isinstance(opts, CorpusOptions):
        raise TypeError(f"options must be a CorpusOptions, got {type(opts).__name__}")
    path = check_path(path, "corpus", "a corpus file or folder path")
    if not path.exists():
        raise opts.error(f"corpus not found: {path}")
    fmt = opts.format or detect_format(path, opts.error)
    if fmt not in FORMATS:
        raise opts.error(f"Invalid corpus format {fmt!r}. Valid: {', '.join(FORMATS)}")
    report = CorpusReport(documents=[], error=opts.error)
    if fmt == "folder":
        return _read_folder(path, opts, report, progress)
    by_id: dict[str, Document] = {}
    seen: set[str] = set()  # every field name some row has
    scalars: set[str] = set()  # ... with a value metadata can hold
    kinds: dict[str, str] = {}  # metadata field -> its kind, fixed by the first row holding it
    for where, line, row in ROWS[fmt](path, report, opts):
        report.rows += 1
        seen.update(row)
        scalars.update(k for k, v in row.items() if _scalar(v))
        doc = _to_document(row, where, line, opts, report, kinds)
        if doc is None:
            continue
        if doc.id in by_id:
            report.duplicates += 1
            del by_id[doc.id]  # the later row wins, at its own position
        by_id[doc.id] = doc
    report.documents = list(by_id.values())
    if report.rows:
        _check_named_fields(opts, seen, scalars, path, format_hint(path, fmt))
    return report


def _read_folder(path: Path, opts: CorpusOptions, report: CorpusReport,
                 progress=None) -> CorpusReport:
    """A folder of documents (or one document file): one `Document` a file (id: its path
    relative to the folder), each file that gives none reported as a skipped row (line 0)."""
    from ..documents import ReadError, read_file, read_folder

    if path.is_dir():
        docs, failures = read_folder(path, opts.include, opts.exclude,
                                     max_file_mb=opts.max_file_mb, ocr=opts.ocr,
                                     progress=progress)
    else:
        docs, failures = [], []
        try:
            docs.append(read_file(path, path.name, opts.max_file_mb, ocr=opts.ocr))
        except ReadError as exc:
            failures.append((path.name, str(exc)))
    report.rows = len(docs) + len(failures)
    for rel, reason in failures:
        report.skip(opts, rel, 0, reason)
    if not report.rows:
        kept = f" matching {', '.join(opts.include)}" if opts.include else ""
        raise opts.error(f"no documents under {path}{kept}: a folder of documents holds .pdf, "
                         ".html, .docx, .pptx, .epub, .md, .txt or image (.png, .jpg, .tiff) "
                         "files")
    if not opts.title_field:  # no titles asked for (a file name is no title)
        docs = [dataclasses.replace(d, title="") for d in docs]  # still the file's document
    kinds: dict[str, str] = {}  # metadata field -> its kind (front matter: one type a field)
    for doc in docs:
        problem = _unstorable(doc.id, doc.text, doc.title, doc.metadata) or \
            kind_problem(kinds, doc.metadata)
        if problem:
            report.skip(opts, doc.id, 0, problem)
        else:
            report.documents.append(doc)
            report.notes.extend(SkippedRow(doc.id, 0, n) for n in getattr(doc, "notes", ()))
    return report


def _check_named_fields(opts: CorpusOptions, seen: set[str], scalars: set[str],
                        path: Path, hint: str = "") -> None:
    absent = {f: role for f, role in opts.named_fields().items() if f not in seen}
    if absent:
        named = ", ".join(f"{f!r} ({role})" for f, role in absent.items())
        fields = ", ".join(sorted(str(f)[:40] for f in seen)[:20]) or "no fields"
        fields += ", …" if len(seen) > 20 else ""
        raise opts.error(f"no row of {path.name} has the field {named}; its rows have: "
                         f"{fields}{hint}")
    nested = [f for f in opts.metadata_fields or () if f not in scalars]
    if nested:
        raise opts.error(f"metadata field {', '.join(map(repr, nested))} of {path.name} holds "
                         "lists or objects in every row: metadata fields hold strings, numbers "
                         "or booleans")


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
    row: dict[str, Any], where: str, line: int, opts: CorpusOptions, report: CorpusReport,
    kinds: dict[str, str],
) -> Document | None:
    text = row.get(opts.text_field)
    if text is None:
        report.skip(opts, where, line, f"missing text field {opts.text_field!r}")
        return None
    if not isinstance(text, str):
        report.skip(opts, where, line, f"text field {opts.text_field!r} is not a string")
        return None
    if not has_visible_text(text):  # whitespace, control, zero-width or BOM only
        report.skip(opts, where, line, "empty text")
        return None
    id_fields = (opts.id_field,) if opts.id_field else ("id", "_id")
    doc_id = next((row[f] for f in id_fields if row.get(f) not in (None, "")), None)
    if doc_id is not None and not _scalar(doc_id):
        report.skip(opts, where, line, f"id field {id_fields[0]!r} holds "
                    f"{type(doc_id).__name__}, not a string or number")
        return None
    if doc_id is None and opts.id_field:
        report.skip(opts, where, line, f"missing id field {opts.id_field!r}")
        return None
    doc_id = str(doc_id) if doc_id is not None else generated_id(row)
    title = row.get(opts.title_field) if opts.title_field else None
    title = title if isinstance(title, str) else ""
    taken = {opts.text_field, opts.title_field, *id_fields}
    names = opts.metadata_fields if opts.metadata_fields is not None else [
        k for k in row if k not in taken
    ]
    metadata = {k: row[k] for k in names if k in row and _scalar(row[k])}
    problem = _unstorable(doc_id, text, title, metadata) or kind_problem(kinds, metadata)
    if problem:
        report.skip(opts, where, line, problem)
        return None
    return Document(doc_id, text, title, metadata)


def _unstorable(doc_id: str, text: str, title: str, metadata: dict[str, Any]) -> str | None:
    """Why a row's document cannot be stored (a lone surrogate, an integer beyond 64 bits)."""
    for name, value in (("text", text), ("id", doc_id), ("title", title)):
        if (at := lone_surrogate(value)) is not None:
            return f"its {name} {surrogate_note(value, at)}"
    for key, value in metadata.items():
        problem = value_problem(key) or value_problem(value)
        if problem:
            return f"metadata field {key!r}: {problem}"
    return None
