"""One BM25 segment as term frequencies, not scores: its chunk ids, each chunk's token count and,
per term, the positions of the chunks holding it with how often (a CSC layout). Scores depend on
the statistics of every live chunk (N, df, the average length), so they are computed at query
time (`bm25_segments`); a segment written once never changes and later versions share its files.
Rows are counted as `bm25_build` counts them: an empty chunk is the one empty token."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bm25_build import GROW, batches, count_batch
from .npy import load_npy

ARRAYS = ("ids", "lengths", "indptr", "docs", "tf")


class Vocab:
    """term -> id over a shared, never-changed base dict and this version's own additions
    (what `count_batch` needs: `setdefault` and `len`)."""

    def __init__(self, base: dict[str, int], added: dict[str, int] | None = None) -> None:
        self.base = base
        self.added = dict(added or {})

    def __len__(self) -> int:
        return len(self.base) + len(self.added)

    def get(self, term: str) -> int | None:
        found = self.base.get(term)
        return self.added.get(term) if found is None else found

    def setdefault(self, term: str, default: int) -> int:
        found = self.get(term)
        if found is None:
            self.added[term] = found = default
        return found


@dataclass
class Rows:
    """Counted rows, ordered by row: postings (term, row within these rows, tf) and per row its
    chunk id and token count."""

    ids: np.ndarray
    lengths: np.ndarray
    term: np.ndarray
    row: np.ndarray
    tf: np.ndarray

    @classmethod
    def count(cls, rows: Iterable[tuple[int, str]], vocab: Vocab | dict[str, int]) -> Rows:
        """(chunk id, tokens joined by spaces) rows counted; new terms join `vocab`."""
        ids: list[int] = []

        def tokens():
            for row_id, lex in rows:
                ids.append(row_id)
                yield lex.split(" ") if lex else []

        parts = {k: [] for k in ("term", "tf", "row", "lengths")}
        first = 0
        for part in batches(tokens(), GROW // 128):
            term, tf, row, length = count_batch(part, vocab)
            for key, value in zip(parts, (term, tf, row + first, length), strict=True):
                parts[key].append(value)
            first += len(part)
        dtypes = {"term": np.int32, "tf": np.float32, "row": np.int32, "lengths": np.int32}
        joined = {k: np.concatenate(v).astype(dtypes[k], copy=False) if v else
                  np.empty(0, dtypes[k]) for k, v in parts.items()}
        return cls(np.asarray(ids, dtype=np.int64), **joined)


@dataclass
class Segment:
    ids: np.ndarray  # (n,) int64 chunk ids, ascending
    lengths: np.ndarray  # (n,) int32 tokens per chunk
    indptr: np.ndarray  # (terms + 1,) int64; terms past its end have no postings here
    docs: np.ndarray  # int32 positions, ascending within a term
    tf: np.ndarray  # float32 term frequencies

    @classmethod
    def empty(cls) -> Segment:
        return cls(np.empty(0, np.int64), np.empty(0, np.int32), np.zeros(1, np.int64),
                   np.empty(0, np.int32), np.empty(0, np.float32))

    @classmethod
    def of(cls, rows: Rows, n_terms: int) -> Segment:
        order = np.argsort(rows.term, kind="stable")  # rows are in order: (term, row) sorted
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows.term, minlength=n_terms), out=indptr[1:])
        return cls(rows.ids, rows.lengths, indptr, rows.row[order], rows.tf[order])

    def __len__(self) -> int:
        return len(self.ids)

    def postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """(positions, tf) of the chunks holding `term`."""
        if term + 1 >= len(self.indptr):
            return self.docs[:0], self.tf[:0]
        start, end = int(self.indptr[term]), int(self.indptr[term + 1])
        return self.docs[start:end], self.tf[start:end]

    def appended(self, rows: Rows, n_terms: int) -> Segment:
        """This segment with `rows` after its own (their ids above all of its ids): each term's
        old postings, then its new ones. Costs the two segments' postings, no sort of the old."""
        starts = np.full(n_terms + 1, self.indptr[-1], dtype=np.int64)
        starts[:len(self.indptr)] = self.indptr
        old, new = np.diff(starts), np.bincount(rows.term, minlength=n_terms)
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(old + new, out=indptr[1:])
        docs = np.empty(int(indptr[-1]), dtype=np.int32)
        tf = np.empty(len(docs), dtype=np.float32)
        shift = indptr[:-1] - starts[:-1]  # old postings move up by lower terms' new ones
        at = np.arange(len(self.docs), dtype=np.int64) + np.repeat(shift, old)
        docs[at], tf[at] = self.docs, self.tf
        order = np.argsort(rows.term, kind="stable")
        term = rows.term[order].astype(np.int64)
        rank = np.arange(len(term), dtype=np.int64) - np.searchsorted(term, term)
        at = indptr[term] + old[term] + rank
        docs[at], tf[at] = rows.row[order] + len(self), rows.tf[order]
        return Segment(np.concatenate([self.ids, rows.ids]),
                       np.concatenate([self.lengths, rows.lengths]), indptr, docs, tf)

    # -- files ---------------------------------------------------------------------------------
    def save(self, folder: Path, prefix: str, source: Path | None = None) -> None:
        """`prefix.<array>.npy` in `folder`; hard links to `source`'s files where given (a
        published version's, equal by construction), written out where linking fails."""
        for name in ARRAYS:
            path = folder / f"{prefix}.{name}.npy"
            if source is not None and link(source / path.name, path):
                continue
            np.save(path, np.ascontiguousarray(getattr(self, name)), allow_pickle=False)

    @classmethod
    def load(cls, folder: Path, prefix: str, *, mapped: bool) -> Segment:
        return cls(*(load_npy(folder / f"{prefix}.{name}.npy", mapped=mapped)
                     for name in ARRAYS))


def link(source: Path, target: Path) -> bool:
    """Hard-link `target` to `source`; False where that fails (gone, another file system)."""
    try:
        os.link(source, target)
        return True
    except OSError:
        return False


def save_terms(path: Path, terms: list[str]) -> None:
    path.write_text(json.dumps(terms, ensure_ascii=False), encoding="utf-8")


def load_terms(path: Path) -> list[str]:
    terms = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
        raise ValueError(f"{path.name} is not a list of terms")
    return terms
