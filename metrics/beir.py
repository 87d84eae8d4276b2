"""BEIR folders: `corpus.jsonl`, `queries.jsonl` and `qrels/<split>.tsv`, read into plain dicts."""

from __future__ import annotations

import csv
import json
from pathlib import Path


def load_beir(
    folder: str | Path, split: str
) -> tuple[dict[str, dict], dict[str, str], dict[str, dict[str, int]]]:
    """Read a BEIR folder → (corpus {id: {"title","text"}}, queries {qid: text}, qrels).

    Only queries that have judgements in `qrels/<split>.tsv` are returned.
    """
    folder = Path(folder)
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
    qrels = _read_qrels(qrels_path)
    corpus: dict[str, dict] = {}
    for row in _read_jsonl(folder / "corpus.jsonl"):
        corpus[str(row["_id"])] = {"title": row.get("title") or "", "text": row.get("text") or ""}
    queries = {
        str(row["_id"]): row["text"]
        for row in _read_jsonl(folder / "queries.jsonl")
        if str(row["_id"]) in qrels
    }
    return corpus, queries, qrels


def _read_jsonl(path: Path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if header and header[:2] != ["query-id", "corpus-id"]:  # headerless file: keep row
            _add_qrel(qrels, header)
        for row in reader:
            _add_qrel(qrels, row)
    return qrels


def _add_qrel(qrels: dict[str, dict[str, int]], row: list[str]) -> None:
    if len(row) >= 3:
        qrels.setdefault(row[0], {})[row[1]] = int(float(row[2]))
