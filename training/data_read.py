"""`read_records`: the rows of a pairs file (JSONL, CSV, TSV, Parquet) or hub data set as
(row number, record) pairs, a row that cannot be parsed as the reason why (a string)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from datasets import load_dataset

from common.encoding import not_utf8
from common.jsonl import jsonl_objects

from .errors import TrainingError

READERS = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet"}


def read_records(name: str, split: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(row number, record) pairs; a record is a string when the row could not be parsed."""
    path = Path(name).expanduser()
    if not path.exists() and (path.suffix.lower() in READERS or name.startswith((".", "/", "~"))):
        raise TrainingError(f"{name} not found (a file; a hub data set name has no extension)")
    if not path.exists():
        yield from _read_hub(name, split)
        return
    if path.is_dir():
        raise TrainingError(f"{name} is a folder; pass a .jsonl, .csv, .tsv or .parquet file")
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise TrainingError(
            f"{name}: unknown file type {path.suffix!r}. Valid: {', '.join(sorted(READERS))}"
        )
    _check_text_file(path, name, reader)
    if reader == "jsonl":
        yield from jsonl_objects(path)
        return
    try:
        if reader == "parquet":
            table = load_dataset("parquet", data_files=str(path), split="train")
        else:
            table = load_dataset(
                "csv",
                data_files=str(path),
                split="train",
                delimiter="\t" if reader == "tsv" else ",",
            )
    except Exception as exc:  # a file datasets cannot parse at all
        raise TrainingError(f"{name}: cannot read as {reader}: {_first_line(_root(exc))}") \
            from exc
    yield from enumerate(table, start=1)

def _check_text_file(path: Path, name: str, reader: str) -> None:
    """Refuse, saying why, a file whose rows no reader would find: compressed, UTF-16, a JSON
    array where JSON Lines are read, a CSV that is not UTF-8 or holds only its header (each
    gave "needs a 'sentence1' column; found none" or datasets' "corresponds to no data")."""
    if reader == "parquet":
        return
    problem = not_utf8(path, scan=reader != "jsonl")  # JSONL: a bad line is a bad row
    if problem:
        raise TrainingError(f"{name} {problem}")
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if reader == "jsonl" and text.startswith("["):
        raise TrainingError(f"{name} holds a JSON array; a pairs file is JSON Lines, one object "
                            "a line: convert it (jq -c '.[]' FILE > FILE.jsonl)")
    lines = [line for line in text.splitlines() if line.strip()]
    if reader != "jsonl" and len(lines) <= 1 and len(head) < 1 << 16:
        held = f"only its header row ({lines[0][:80]})" if lines else "no rows"
        raise TrainingError(f"{name} holds {held}: no pairs to train on")


def _read_hub(name: str, split: str) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        table = load_dataset(name, split=split)
    except Exception as exc:  # offline or unknown name: one line for the user
        raise TrainingError(
            f"{name}: not a local file, and not loadable as a hub data set "
            f"({type(exc).__name__}: {_first_line(exc)})"
        ) from exc
    yield from enumerate(table, start=1)


def _root(exc: BaseException) -> BaseException:
    """The innermost cause: datasets wraps the parser's own message ("Error tokenizing data.
    C error: EOF inside string starting at row 1") in a generic one."""
    seen = exc
    while (seen.__cause__ or seen.__context__) is not None:
        seen = seen.__cause__ or seen.__context__
    return seen


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
