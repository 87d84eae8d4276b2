"""`extend`: the next version's filter index (`Columns`) from the published version's and the
change, instead of `Columns.build`'s pass over every chunk. A writer only ever adds chunks with
ids above every existing one and deletes chunks (an upsert is both), so the new columns are the
old ones with the deleted chunks blanked and the new id range, read from SQLite alone, appended.
Codes into sorted distinct words (text values, access names and lists) are remapped with numpy
lookups where new words shift them, and words no live chunk holds any more are dropped, so the
result equals `Columns.build` over the same store, array for array. Where it could not be exact
(a field's kind changed, a field the old columns do not hold, an integer beyond 64 bits) it
returns None and the caller builds."""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from itertools import compress
from typing import Any

import numpy as np

from .access_column import AccessColumn
from .columns import KINDS, Column, Columns, chunk_id_end, column, scan


def extend(base: Columns | None, base_kinds: dict[str, str] | None, conn: sqlite3.Connection,
           kinds: dict[str, str], start: int, dropped: np.ndarray) -> Columns | None:
    """`base` (the columns of a store whose chunk ids end at `start`, its field kinds
    `base_kinds`) after deleting chunks `dropped` and adding those `conn` holds from `start` on;
    None where only `Columns.build` can be exact."""
    if base is None or base.access is None or base_kinds is None or len(base.doc) != start:
        return None
    wanted = {n: k for n, k in kinds.items() if k in KINDS}
    for name, kind in wanted.items():
        if name in base.fields and base.fields[name].kind != kind:
            return None  # a kind changed (int -> float, say): the old values need converting
        if name not in base.fields and name in base_kinds:
            return None  # held by SQLite alone before (mixed, or an integer beyond 64 bits)
    size = chunk_id_end(conn)
    if size < start:
        return None
    gone = np.unique(dropped[dropped < start]).astype(np.int64)
    doc_new, first_new, raw, access = scan(conn, kinds, start, size)
    doc = np.concatenate([base.doc, doc_new])
    doc[gone] = -1
    first = np.concatenate([base.first, first_new])
    first[gone] = False
    fields = {}
    for name, kind in wanted.items():
        added = column(kind, raw[name], size - start)
        if added is None:
            return None
        old = base.fields.get(name)
        fields[name] = _joined(old, added, gone) if old is not None else _padded(added, start)
    lists = _access(base.access, access, gone, start, size, doc)
    return Columns(doc, first, fields, lists)


def _padded(added: Column, start: int) -> Column:
    """A field new to this version: absent from every chunk below `start`."""
    if added.kind == "str":
        values = np.concatenate([np.full(start, -1, dtype=np.int32), added.values])
        return _used_words(Column("str", values, None, added.words))
    return Column(added.kind, np.concatenate([np.zeros(start, added.values.dtype), added.values]),
                  np.concatenate([np.zeros(start, dtype=bool), added.present]))


def _joined(old: Column, added: Column, gone: np.ndarray) -> Column:
    if old.kind != "str":
        values = np.concatenate([old.values, added.values])
        present = np.concatenate([old.present, added.present])
        values[gone] = 0
        present[gone] = False
        return Column(old.kind, values, present)
    words, old_to, new_to = _merged(list(old.words), added.words)
    values = np.concatenate([_remap(old.values, old_to), _remap(added.values, new_to)])
    values[gone] = -1
    return _used_words(Column("str", values, None, words))


def _merged(old: list[Any], new: list[Any]) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """(sorted union of two sorted word lists, the old words' codes in it, the new ones')."""
    fresh = [w for w in new if not _has(old, w)]  # the change's own words: few
    old_to = np.arange(len(old), dtype=np.int64)
    if fresh:
        # old word i moves up by the fresh words sorting before it
        slots = np.asarray([bisect_left(old, w) for w in fresh], dtype=np.int64)
        old_to += np.searchsorted(slots, old_to, side="right")
        words = sorted(old + fresh)
    else:
        words = old
    new_to = np.asarray([bisect_left(words, w) for w in new], dtype=np.int64)
    return words, old_to.astype(np.int32), new_to.astype(np.int32)


def _has(words: list[Any], w: Any) -> bool:
    i = bisect_left(words, w)
    return i < len(words) and words[i] == w


def _remap(codes: np.ndarray, to: np.ndarray) -> np.ndarray:
    """Codes through the table `to`, -1 staying -1."""
    table = np.concatenate([to.astype(np.int32), np.asarray([-1], dtype=np.int32)])
    return table[codes]  # code -1 reads the table's last slot


def _used_words(col: Column) -> Column:
    """`col` without the words no chunk holds (`Columns.build` never has such)."""
    used = np.zeros(len(col.words), dtype=bool)
    used[col.values[col.values >= 0]] = True
    if used.all():
        return col
    to = np.cumsum(used, dtype=np.int32) - 1
    return Column("str", _remap(col.values, to), None, list(compress(col.words, used)))


def _access(base: AccessColumn, rows: list, gone: np.ndarray, start: int, size: int,
            doc: np.ndarray) -> AccessColumn:
    """The access column with `gone` blanked and the new range's `rows` appended, its lists
    numbered as `AccessColumn.build` numbers them: by their first chunk in (document rowid,
    chunk id) order, that is by the smallest rowid holding them."""
    keys = base.keys()
    seen = {k: i for i, k in enumerate(keys)}
    added = np.full(size - start, -1, dtype=np.int32)
    for at, names in rows:
        added[at] = seen.setdefault(tuple(sorted(set(names))), len(seen))
    keys = list(seen)
    lists = np.concatenate([base.lists.astype(np.int32), added])
    lists[gone] = -1
    held = lists >= 0
    low = np.full(len(keys), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(low, lists[held], doc[held])
    order = [i for i in np.argsort(low, kind="stable").tolist() if low[i] < np.iinfo(np.int64).max]
    to = np.full(len(keys), -1, dtype=np.int32)
    to[order] = np.arange(len(order), dtype=np.int32)
    return AccessColumn.of_keys(_remap(lists, to), [keys[i] for i in order])
