"""BEIR folders: `corpus.jsonl`, `queries.jsonl` and `qrels/<split>.tsv`, read into plain dicts.
A malformed line, a row without `_id` (or a query without `text`) or a qrels score that is not
a grade raises a `ValueError` naming the file and the line."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from common import check_path
from common.jsonl import jsonl_objects
from common.text import has_visible_text


def load_beir(
    folder: str | Path, split: str
) -> tuple[dict[str, dict], dict[str, str], dict[str, dict[str, int]]]:
    """Read a BEIR folder → (corpus {id: {"title","text"}}, queries {qid: text}, qrels).

    Only queries that have judgements in `qrels/<split>.tsv` are returned.
    """
    folder = check_path(folder, "BEIR folder", "a BEIR folder path")
    if not folder.is_dir():
        raise FileNotFoundError(f"BEIR folder {folder} " + ("is a file" if folder.exists() else
                                "not found") + ": a BEIR folder holds corpus.jsonl, "
                                "queries.jsonl and qrels/<split>.tsv")
    qrels_path = folder / "qrels" / f"{split}.tsv"
    for needed in (folder / "corpus.jsonl", folder / "queries.jsonl"):
        if not needed.is_file():
            raise FileNotFoundError(f"{needed} not found: a BEIR folder needs corpus.jsonl, "
                                    "queries.jsonl and qrels/<split>.tsv")
    if not qrels_path.is_file():
        have = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
        raise FileNotFoundError(
            f"no qrels for split {split!r} in {folder}. Valid splits: {', '.join(have) or 'none'}"
        )
    queries, qrels = judged_queries(folder, split)
    corpus: dict[str, dict] = {}
    for _, row in _read_jsonl(folder / "corpus.jsonl", "_id"):
        corpus[str(row["_id"])] = {"title": _text(row.get("title")), "text": _text(row.get("text"))}
    return corpus, queries, qrels


def judged_queries(folder: str | Path, split: str
                   ) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """(the queries of `folder` that `qrels/<split>.tsv` judges {qid: text}, the qrels), without
    reading the corpus; a split that judges no query with text is a `ValueError`."""
    folder = Path(folder)
    qrels_path = folder / "qrels" / f"{split}.tsv"
    qrels = _read_qrels(qrels_path)
    if not qrels:
        raise ValueError(f"{qrels_path} judges no query: it needs rows of "
                         "query-id<TAB>corpus-id<TAB>score after its header")
    queries = {q: t for q, t in read_queries(folder / "queries.jsonl").items() if q in qrels}
    if not queries:
        raise ValueError(f"no query of {folder / 'queries.jsonl'} has judgements in "
                         f"{qrels_path} ({len(qrels)} judged query ids, e.g. "
                         f"{', '.join(list(qrels)[:3]) or 'none'}): are the ids the same?")
    return queries, qrels


def read_queries(path: str | Path) -> dict[str, str]:
    """A BEIR-style queries.jsonl ({"_id", "text"} a line) → {qid: text}; a bad line raises a
    `ValueError` naming the file, the line and what it needs."""
    path = check_path(path, "queries file", "a queries.jsonl path")
    if not path.is_file():
        raise FileNotFoundError(f"queries file {path} not found")
    queries: dict[str, str] = {}
    for n, row in _read_jsonl(path, "_id", "text"):
        text = row["text"]
        if not isinstance(text, str) or not has_visible_text(text):  # nothing a reader sees
            raise ValueError(f"{path}:{n}: query text is {text!r}: a query needs some text")
        queries[str(row["_id"])] = text
    return queries


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _read_jsonl(path: Path, *required: str):
    """(line number, object) for each non-blank line; anything else is a `ValueError`."""
    for n, row in jsonl_objects(path):
        if isinstance(row, str):
            raise ValueError(f"{path}:{n}: {row}; each line must be one JSON object")
        missing = [f for f in required if row.get(f) in (None, "")]
        if missing:
            raise ValueError(f"{path}:{n}: no {' or '.join(map(repr, missing))} field "
                             f"(the line has: {', '.join(row) or 'nothing'}); each line "
                             f"needs {', '.join(required)}")
        yield n, row


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8-sig", newline="") as fh:  # -sig: a BOM is no header
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if header and header[:2] != ["query-id", "corpus-id"]:  # headerless file: keep row
            _add_qrel(qrels, header, path, 1)
        for row in reader:
            _add_qrel(qrels, row, path, reader.line_num)
    return qrels


def _add_qrel(qrels: dict[str, dict[str, int]], row: list[str], path: Path, line: int) -> None:
    if not row or not "".join(row).strip():
        return
    if len(row) < 3:
        raise ValueError(f"{path}:{line}: {len(row)} column(s) where qrels need 3, "
                         "query-id<TAB>corpus-id<TAB>score")
    try:
        score = float(row[2])
    except ValueError:
        score = float("nan")
    if not math.isfinite(score) or score != int(score):
        raise ValueError(f"{path}:{line}: score {row[2]!r} is not a whole number "
                         "(qrels hold relevance grades such as 0, 1, 2)")
    qrels.setdefault(row[0], {})[row[1]] = int(score)
