"""`AccessColumn`: per chunk id, which access list its document carries (`indexer.access`), as a
part of the folder store's filter index (`Columns`). The distinct lists are few (documents share
them) and kept once, as codes into the sorted distinct names; a read's `readers` then becomes a
mask over chunk ids with numpy alone: which lists name a reader, then which chunks hold one
of those lists or none (visible to every reader). Saved beside the other columns."""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common.npy import load_npy

FILES = ("access.lists.npy", "access.ptr.npy", "access.names.npy")
WORDS = "access.json"


@dataclass
class AccessColumn:
    lists: np.ndarray  # int32 per chunk id: its document's access list, -1 for none
    ptr: np.ndarray  # int64 (lists + 1,): list i holds names[ptr[i]:ptr[i + 1]]
    names: np.ndarray  # int32 codes into `words`
    words: list[str]  # the sorted distinct names

    @property
    def restricted(self) -> bool:
        """Whether any chunk's document carries an access list."""
        return len(self.ptr) > 1

    def mask(self, readers: frozenset[str]) -> np.ndarray:
        """Bool per chunk id: its document has no access list, or one naming a reader."""
        codes = [i for i in (self._code(r) for r in readers) if i is not None]
        ok = np.zeros(len(self.ptr), dtype=bool)  # per list (+ one slot for -1: no list)
        ok[-1] = True
        if codes:
            named = np.isin(self.names, np.asarray(codes, dtype=np.int32))
            # a list names a reader where any of its names does (lists are never empty)
            hits = np.add.reduceat(named.astype(np.int32), self.ptr[:-1]) if len(named) else []
            ok[:-1] = np.asarray(hits) > 0
        return ok[self.lists]

    def _code(self, name: str) -> int | None:
        i = bisect_left(self.words, name)
        return i if i < len(self.words) and self.words[i] == name else None

    @classmethod
    def build(cls, size: int, rows: Iterable[tuple[int, list[str] | None]]) -> AccessColumn:
        """From (chunk id, its document's access names or None), one row a chunk."""
        lists = np.full(size, -1, dtype=np.int32)
        seen: dict[tuple[str, ...], int] = {}
        for chunk_id, names in rows:
            if names is not None:
                lists[chunk_id] = seen.setdefault(tuple(sorted(set(names))), len(seen))
        return cls.of_keys(lists, list(seen))

    @classmethod
    def of_keys(cls, lists: np.ndarray, keys: list[tuple[str, ...]]) -> AccessColumn:
        """From per-chunk list numbers and the lists themselves (`keys[i]`: list i's sorted
        distinct names)."""
        words = sorted({n for key in keys for n in key})
        code = {w: i for i, w in enumerate(words)}
        ptr = np.zeros(len(keys) + 1, dtype=np.int64)
        flat: list[int] = []
        for i, key in enumerate(keys):
            flat.extend(code[n] for n in key)
            ptr[i + 1] = len(flat)
        # an empty list (a value no name reads: nobody but an unrestricted read) holds one
        # impossible code, so that reduceat sees a segment for it
        return cls(lists, ptr, np.asarray(flat, dtype=np.int32), words)._no_empty()

    def keys(self) -> list[tuple[str, ...]]:
        """Each list's sorted distinct names (`of_keys`'s `keys`)."""
        ptr, names = self.ptr.tolist(), self.names.tolist()
        return [tuple(self.words[c] for c in names[ptr[i]:ptr[i + 1]] if c >= 0)
                for i in range(len(ptr) - 1)]

    def _no_empty(self) -> AccessColumn:
        sizes = np.diff(self.ptr)
        if len(sizes) == 0 or sizes.min() > 0:
            return self
        flat, ptr = [], [0]
        for i, size in enumerate(sizes.tolist()):
            flat.extend(self.names[self.ptr[i]:self.ptr[i + 1]].tolist() if size else [-1])
            ptr.append(len(flat))
        return AccessColumn(self.lists, np.asarray(ptr, dtype=np.int64),
                            np.asarray(flat, dtype=np.int32), self.words)

    def save(self, folder: Path) -> None:
        for name, array in zip(FILES, (self.lists, self.ptr, self.names), strict=True):
            np.save(folder / name, array, allow_pickle=False)
        (folder / WORDS).write_text(json.dumps(self.words, ensure_ascii=False),
                                    encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> AccessColumn | None:
        """The column saved in `folder`; None for a version written before access existed."""
        if not (folder / WORDS).exists():
            return None
        lists, ptr, names = (np.asarray(load_npy(folder / n))
                             for n in FILES)
        return cls(lists, ptr, names, json.loads((folder / WORDS).read_text(encoding="utf-8")))
