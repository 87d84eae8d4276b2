"""What data a recipe trains on, named so a person can get it: each data set's name, hub id,
licence and the local folder form it is read in (files under the data root, and the fields of
their rows), from the recipe's `data` list. `missing_data` says which are not there, and
`missing_text` says it in words (what to get, where to put it, what its rows hold)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .data_examples import FIELDS as KIND_FIELDS
from .errors import TrainingError

FIELDS = {**KIND_FIELDS, "beir": "corpus.jsonl (_id, title, text), queries.jsonl (_id, text), "
                                "qrels/SPLIT.tsv (query-id, corpus-id, score)"}
DATA_KEYS = {"name", "hub", "licence", "files", "note"}


@dataclass(frozen=True)
class DataSet:
    name: str
    hub: str  # the hub id to download it from, where a network exists
    licence: str
    files: dict[str, str]  # path under the data root -> its kind (a key of FIELDS)
    note: str = ""

    def text(self, root: Path) -> str:
        """One Markdown list item: what it is, where to get it, where each file goes."""
        where = "; ".join(f"`{root / f}` ({FIELDS[k]})" for f, k in self.files.items())
        note = f" {self.note}" if self.note else ""
        return (f"- **{self.name}**: on the hub as `{self.hub}` (licence: {self.licence}). Put "
                f"it here: {where}.{note}")


def recipe_data(raw: dict[str, Any], where: str) -> tuple[DataSet, ...]:
    """The `data` list of a recipe's raw object, checked; raises `TrainingError` naming the
    entry that is wrong."""
    entries = raw.get("data", [])
    if not isinstance(entries, list):
        raise TrainingError(f"{where}: data: a list of data sets, got {type(entries).__name__}")
    out = []
    for i, e in enumerate(entries):
        at = f"{where}: data[{i}]"
        if not isinstance(e, dict) or not {"name", "hub", "licence", "files"} <= set(e):
            raise TrainingError(f"{at}: needs name, hub, licence and files")
        if extra := set(e) - DATA_KEYS:
            raise TrainingError(f"{at}: unknown key {sorted(extra)[0]!r}. Valid: "
                                f"{', '.join(sorted(DATA_KEYS))}")
        files = e["files"]
        if not isinstance(files, dict) or not files or any(k not in FIELDS
                                                           for k in files.values()):
            raise TrainingError(f"{at}: files: an object of path -> kind, the kind one of "
                                f"{', '.join(FIELDS)}")
        out.append(DataSet(str(e["name"]), str(e["hub"]), str(e["licence"]), dict(files),
                           str(e.get("note", ""))))
    return tuple(out)


def missing_data(raw: dict[str, Any], where: str, root: str | Path) -> list[DataSet]:
    """The data sets a recipe (its raw object, read from `where`) names with a file (a BEIR
    folder's) absent under data root `root`."""
    root = Path(root)
    return [d for d in recipe_data(raw, where) if any(not (root / f).exists() for f in d.files)]


def missing_text(name: str, missing: list[DataSet], root: Path) -> str:
    """What a page says when recipe `name`'s data is not there: what to get and where to put
    it, in words (Markdown)."""
    sets = "\n".join(d.text(root) for d in missing)
    return (f"The recipe **{name}** trains on data that this server does not have yet "
            f"(looked for under the data root, `{root}`; BERTSCOPE_DATA sets another):\n\n"
            f"{sets}\n\nOr train on a file of your own instead: upload it (JSON lines, CSV, "
            "TSV or Parquet; the form lists the fields each kind needs).")
