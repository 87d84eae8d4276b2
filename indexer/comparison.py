"""`compare`: one query on two indexes (e.g. an index and its rebuild with a fine-tuned model),
each side's hits with their documents and the time its search took, and the second list's rank
movements against the first (`movement.rank_movements`). `search_run` is one side alone.

Both hold the index contract (`SemanticIndex.search`, `documents`, `stats`) and never ask which
store an index is: a folder index compares with a Milvus one as with another folder. Both take
`readers=` (`indexer.access`): each side's hits, documents and counts are those readers may see,
so neither the lists nor the corpus difference tell of a document hidden from them."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .access import check_readers
from .documents import Document, Hit
from .fusion import DEFAULT_FUSION
from .movement import KINDS, Movement, corpus_difference, rank_movements

if TYPE_CHECKING:
    from .index import SemanticIndex
    from .stats import IndexStats


@dataclass(frozen=True)
class SearchRun:
    """One index's answer to one query: its hits, their documents (by id) and the search's
    wall time in seconds (the documents' read not included)."""

    hits: list[Hit]
    documents: dict[str, Document]
    seconds: float


@dataclass(frozen=True)
class Comparison:
    """`first` and `second`: each index's `SearchRun`; `moves`: one `Movement` per hit of the
    second, in its order, then one per hit of the first that the second lacks ("gone");
    `difference`: a sentence when the two hold different documents (so "new" or "gone" may be
    a document the other lacks), else None; `first_stats` / `second_stats`: each `IndexStats`."""

    first: SearchRun
    second: SearchRun
    moves: list[Movement]
    difference: str | None
    first_stats: IndexStats
    second_stats: IndexStats

    @property
    def counts(self) -> dict[str, int]:
        """Movements by kind, every kind of `movement.KINDS` present (0 where none)."""
        return {kind: sum(m.kind == kind for m in self.moves) for kind in KINDS}

    @property
    def gone(self) -> list[Movement]:
        """The first list's documents the second did not return, in the first's order."""
        return [m for m in self.moves if m.kind == "gone"]

    @property
    def titles(self) -> dict[str, str | None]:
        """doc id -> title of every document of the first list (what a "gone" entry names)."""
        return {h.doc_id: h.title for h in self.first.hits}


def search_run(index: SemanticIndex, query: str, *, k: int = 10, mode: str = "dense",
               fusion: str = DEFAULT_FUSION, filter: Mapping[str, Any] | None = None,
               readers: Iterable[str] | None = None) -> SearchRun:
    """`index.search(query, ...)` timed, with the documents of its hits read in one call, both
    as `readers` see them (None: every document)."""
    if not isinstance(query, str):
        raise TypeError(f"query must be one string, got {type(query).__name__}: compare one "
                        "query at a time")
    started = time.perf_counter()
    hits = index.search(query, k=k, mode=mode, fusion=fusion, filter=filter, readers=readers)
    seconds = time.perf_counter() - started
    documents = index.documents([hit.doc_id for hit in hits], readers=readers) if hits else {}
    return SearchRun(hits, documents, seconds)


def compare(first: SemanticIndex, second: SemanticIndex, query: str, *, k: int = 10,
            mode: str = "dense", fusion: str = DEFAULT_FUSION,
            filter: Mapping[str, Any] | None = None,
            readers: Iterable[str] | None = None) -> Comparison:
    """The same query, with the same k, mode, fusion, filter and readers, on `first` then
    `second`, and the second's results marked against the first's (see `Comparison`); the
    stats count what `readers` see."""
    readers = check_readers(readers)  # an iterator would be spent by the first side
    options = {"k": k, "mode": mode, "fusion": fusion, "filter": filter, "readers": readers}
    one = search_run(first, query, **options)
    two = search_run(second, query, **options)
    moves = rank_movements([h.doc_id for h in one.hits], [h.doc_id for h in two.hits])
    first_stats, second_stats = first.stats(readers=readers), second.stats(readers=readers)
    return Comparison(one, two, moves, corpus_difference(first_stats, second_stats),
                      first_stats, second_stats)
