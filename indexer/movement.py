"""Rank movement between two result lists of one query (e.g. an index and its rebuild with a
fine-tuned model): each result is new, up, down or same; what the first list had and the second
lacks is gone. Pure: lists of document ids in, `Movement`s out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

KINDS = ("new", "up", "down", "same", "gone")


@dataclass(frozen=True)
class Movement:
    doc_id: str
    kind: str  # one of KINDS
    rank: int | None  # 1-based rank in the second list; None: gone
    before: int | None  # 1-based rank in the first list; None: new

    @property
    def delta(self) -> int | None:
        """Places gained (positive: moved up); None for new and gone."""
        if self.rank is None or self.before is None:
            return None
        return self.before - self.rank

    @property
    def label(self) -> str:
        """A short mark for a result: "new", "↑ 2", "↓ 1", "=", "gone (was 3)"."""
        if self.kind == "up":
            return f"↑ {self.delta}"
        if self.kind == "down":
            return f"↓ {-self.delta}"
        if self.kind == "gone":
            return f"gone (was {self.before})"
        return "=" if self.kind == "same" else "new"


def rank_movements(before: Sequence[str], after: Sequence[str]) -> list[Movement]:
    """One `Movement` per id of `after`, in its order, then one per id of `before` that `after`
    lacks ("gone"), in `before`'s order. Ranks are positions (1-based) in each list, so a
    document beyond a list's k counts as absent from it. Ids must be unique within a list."""
    first, second = _ranks(before, "before"), _ranks(after, "after")
    out = []
    for doc_id, rank in second.items():
        was = first.get(doc_id)
        kind = "new" if was is None else "up" if was > rank else "down" if was < rank else "same"
        out.append(Movement(doc_id, kind, rank, was))
    out.extend(Movement(d, "gone", None, r) for d, r in first.items() if d not in second)
    return out


def _ranks(ids: Sequence[str], name: str) -> dict[str, int]:
    if isinstance(ids, str):
        raise TypeError(f"{name} must be a list of document ids, not a string")
    ranks: dict[str, int] = {}
    for rank, doc_id in enumerate(ids, start=1):
        if not isinstance(doc_id, str):
            raise TypeError(f"{name}[{rank - 1}] must be a document id (str), got "
                            f"{type(doc_id).__name__}: pass [hit.doc_id for hit in hits]")
        if doc_id in ranks:
            raise ValueError(f"{name} lists {doc_id!r} twice (ranks {ranks[doc_id]} and {rank}): "
                             "compare per-document hits, not per_chunk ones")
        ranks[doc_id] = rank
    return ranks


def corpus_difference(first, second) -> str | None:
    """A sentence when two indexes (their `IndexStats`) do not hold the same documents, so that
    "new" and "gone" may mean a document the other index lacks, not a ranking change; None when
    both hold as many documents from the same source (a rebuild's case)."""
    if first.documents == second.documents and first.source == second.source:
        return None
    return (f"These indexes hold different documents ({first.documents:,} from "
            f"{first.source or 'an unnamed source'} against {second.documents:,} from "
            f"{second.source or 'an unnamed source'}): a result marked new or gone may be a "
            "document the other index does not have, not a change of ranking.")
