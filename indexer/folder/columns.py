"""`Columns`: the folder store's filter index. Per chunk id, each filterable metadata field's
value (text as codes into its sorted distinct values; numbers as int64 or float64 with a
presence mask), the chunk's document (its SQLite rowid) and whether it is its document's first
chunk. A filter is then a boolean mask over chunk ids made by numpy in milliseconds at 1M
chunks, where matching it in SQLite parsed every document's metadata JSON on every query; the
distinct values of a field are read off its codes; who may see each chunk is its `access`
column (`access_column`). Built from a version's SQLite store when it is published (one pass),
saved beside it as `.npy` files, mapped when it is opened."""

from __future__ import annotations

import json
import sqlite3
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from common.npy import load_npy

from ..access import access_of
from ..filters import Condition
from .access_column import AccessColumn

COMPARE = {"eq": np.equal, "gt": np.greater, "gte": np.greater_equal, "lt": np.less,
           "lte": np.less_equal}
KINDS = ("str", "int", "float", "bool")  # "mixed" fields are matched by SQLite instead
FETCH = 10_000
SEEN_KEPT = 64  # reader sets whose masks a version keeps


@dataclass
class Column:
    kind: str  # str | int | float | bool
    values: np.ndarray  # str: int32 codes into `words` (-1: absent); else the numbers
    present: np.ndarray | None = None  # numbers: bool per chunk id; None for codes
    words: list[Any] = field(default_factory=list)  # str: the sorted distinct values

    def mask(self, op: str, wanted: list) -> np.ndarray:
        if self.kind == "str":
            codes = [self._code(v) for v in wanted]
            codes = [c for c in codes if c is not None]
            if not codes:
                return np.zeros(len(self.values), dtype=bool)
            return np.isin(self.values, codes) if op == "in" else self.values == codes[0]
        if op == "in":
            found = np.isin(self.values, np.asarray(wanted, dtype=self.values.dtype))
        else:
            found = COMPARE[op](self.values, wanted[0])
        return found & self.present

    def _code(self, value) -> int | None:
        i = bisect_left(self.words, value)
        return i if i < len(self.words) and self.words[i] == value else None

    def distinct(self, live: np.ndarray, limit: int) -> list[Any] | None:
        """The distinct values of live chunks, sorted as `db.field_values` sorts them; None
        when there are more than `limit`."""
        if self.kind == "str":
            codes = np.unique(self.values[live & (self.values >= 0)])
            out = [self.words[c] for c in codes.tolist()]
        else:
            out = np.unique(self.values[live & self.present]).tolist()
            if self.kind == "int" or self.kind == "bool":
                out = [int(v) for v in out]
        if len(out) > limit:
            return None
        return sorted(out, key=lambda v: (type(v).__name__, v))


@dataclass
class Columns:
    doc: np.ndarray  # int64 per chunk id: its document's rowid, -1 where no live chunk is
    first: np.ndarray  # bool per chunk id: chunk 0 of its document (counts documents)
    fields: dict[str, Column]
    access: AccessColumn | None = None  # None: a version saved before access existed
    # reader set -> (visible mask, documents): a version never changes, and a service asks for
    # the same principals again and again (bounded; the masks are shared: never written to)
    _seen: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def live(self) -> np.ndarray:
        return self.doc >= 0

    def visible(self, readers: frozenset[str] | None) -> np.ndarray | None:
        """Bool per chunk id: live and visible to `readers` (None: no restriction asked, or
        no document restricted, so nothing to mask)."""
        if readers is None or self.access is None or not self.access.restricted:
            return None
        return self._visible(readers)[0]

    def _visible(self, readers: frozenset[str]) -> tuple[np.ndarray, int]:
        kept = self._seen.get(readers)
        if kept is None:
            if len(self._seen) >= SEEN_KEPT:
                self._seen.clear()
            mask = self.live & self.access.mask(readers)
            mask.flags.writeable = False
            kept = self._seen[readers] = (mask, int(np.count_nonzero(mask & self.first)))
        return kept

    def can_match(self, conditions: list[Condition]) -> bool:
        return all(name in self.fields for name, _, _ in conditions)

    def matching(self, conditions: list[Condition], readers: frozenset[str] | None = None
                 ) -> tuple[np.ndarray, int]:
        """(mask over chunk ids, documents matched) of every condition at once, among the
        chunks `readers` may see (`visible`)."""
        seen = self.visible(readers)
        if seen is not None and not conditions:
            return self._visible(readers)
        mask = self.live.copy() if seen is None else seen.copy()
        for name, op, values in conditions:
            mask &= self.fields[name].mask(op, values)
        return mask, int(np.count_nonzero(mask & self.first))

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / "doc.npy", self.doc, allow_pickle=False)
        np.save(folder / "first.npy", self.first, allow_pickle=False)
        index = {}
        for i, (name, col) in enumerate(sorted(self.fields.items())):
            np.save(folder / f"f{i}.values.npy", col.values, allow_pickle=False)
            if col.present is not None:
                np.save(folder / f"f{i}.present.npy", col.present, allow_pickle=False)
            index[name] = {"file": f"f{i}", "kind": col.kind, "words": col.words}
        (folder / "fields.json").write_text(json.dumps(index, ensure_ascii=False),
                                            encoding="utf-8")
        if self.access is not None:
            self.access.save(folder)

    @classmethod
    def load(cls, folder: Path) -> Columns:
        def read(name: str) -> np.ndarray:  # mapped, seen as a plain array (slow item access)
            return np.asarray(load_npy(folder / name))

        index = json.loads((folder / "fields.json").read_text(encoding="utf-8"))
        fields = {}
        for name, entry in index.items():
            present = (read(f"{entry['file']}.present.npy")
                       if entry["kind"] != "str" else None)
            fields[name] = Column(entry["kind"], read(f"{entry['file']}.values.npy"), present,
                                  entry["words"])
        return cls(read("doc.npy"), read("first.npy"), fields, AccessColumn.load(folder))

    @classmethod
    def build(cls, conn: sqlite3.Connection, kinds: dict[str, str]) -> Columns:
        """From a store: one pass over its chunks and their documents' metadata."""
        size = chunk_id_end(conn)
        doc, first, raw, access = scan(conn, kinds, 0, size)
        wanted = {n: k for n, k in kinds.items() if k in KINDS}
        columns = {n: column(wanted[n], raw[n], size) for n in wanted}
        return cls(doc, first, {n: c for n, c in columns.items() if c is not None},
                   AccessColumn.build(size, access))


def scan(conn: sqlite3.Connection, kinds: dict[str, str], start: int, size: int
         ) -> tuple[np.ndarray, np.ndarray, dict[str, dict[int, Any]], list]:
    """(doc, first, {field: {chunk id - start: value}}, [(chunk id - start, access names)]) of
    the chunks with ids in [start, size), read in (document rowid, chunk id) order."""
    doc = np.full(size - start, -1, dtype=np.int64)
    first = np.zeros(size - start, dtype=bool)
    wanted = [n for n, k in kinds.items() if k in KINDS]
    raw: dict[str, dict[int, Any]] = {n: {} for n in wanted}
    seen_doc, meta, names = None, {}, None
    access: list[tuple[int, list[str]]] = []
    cursor = conn.execute(
        "SELECT c.chunk_id, c.chunk_no, d.rowid, d.metadata FROM chunks c "
        "JOIN documents d ON d.doc_id = c.doc_id WHERE c.chunk_id >= ? "
        "ORDER BY d.rowid, c.chunk_id", (start,))
    while rows := cursor.fetchmany(FETCH):
        for chunk_id, chunk_no, rowid, text in rows:
            if rowid != seen_doc:
                seen_doc, meta = rowid, json.loads(text)
                names = access_of(meta)
            at = chunk_id - start
            if names is not None:
                access.append((at, names))
            doc[at] = rowid
            first[at] = chunk_no == 0
            for name in wanted:
                if name in meta:
                    raw[name][at] = meta[name]
    return doc, first, raw, access


def chunk_id_end(conn: sqlite3.Connection) -> int:
    """One past the highest chunk id the store has handed out (the columns' length)."""
    row = conn.execute("SELECT value FROM info WHERE key='next_chunk_id'").fetchone()
    top = conn.execute("SELECT max(chunk_id) FROM chunks").fetchone()[0]
    return max(int(row[0]) if row else 0, (top + 1) if top is not None else 0)


def column(kind: str, values: dict[int, Any], size: int) -> Column | None:
    """The column of one field; None where numpy cannot hold its values (an integer beyond 64
    bits, which SQLite's matching still compares)."""
    ids = np.fromiter(values.keys(), dtype=np.int64, count=len(values))
    if kind == "str":
        words = sorted({v for v in values.values() if isinstance(v, str)})
        code = {w: i for i, w in enumerate(words)}
        codes = np.full(size, -1, dtype=np.int32)
        codes[ids] = [code.get(v, -1) if isinstance(v, str) else -1 for v in values.values()]
        return Column(kind, codes, None, words)
    dtype = np.float64 if kind == "float" else np.int64
    numbers = np.zeros(size, dtype=dtype)
    present = np.zeros(size, dtype=bool)
    keep = [(i, int(v) if isinstance(v, bool) else v)
            for i, v in zip(ids.tolist(), values.values(), strict=True)
            if isinstance(v, int | float)]
    if any(isinstance(v, int) and not -2**63 <= v < 2**63 for _, v in keep):
        return None
    if keep:
        at, vals = zip(*keep, strict=True)
        numbers[list(at)] = vals
        present[list(at)] = True
    return Column(kind, numbers, present)
