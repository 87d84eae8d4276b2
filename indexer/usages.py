"""exBERT-style "where else is this word used like this": the chunks of an index that contain a
word, ranked by how close the word's contextual vector there is to its vector in one context.
An index stores sentence vectors, not token vectors, so the candidates come from a lexical
search and their token vectors from the encoder (`trajectory`, injected so callers can cache it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .access import check_readers
from .documents import Hit

CANDIDATES = 20  # chunks containing the word that are compared


@dataclass(frozen=True)
class Usage:
    hit: Hit
    text: str  # the chunk cropped around the word
    span: tuple[int, int]  # the word's characters in `text`
    similarity: float  # cosine of the word's vectors at the chosen layer


@dataclass(frozen=True)
class Usages:
    word: str
    layer: int
    candidates: int  # distinct uses of the word compared (one per place in a document)
    found: list[Usage] = field(default_factory=list)  # the most similar, best first
    nearest: list[Hit] = field(default_factory=list)  # none contain it: nearest to the context
    capped: bool = False  # the lexical search stopped at its limit: the index may hold more

    def caption(self, index: str, anchor: str) -> str:
        """What the list shows, counted: how many uses, of how many compared, from where."""
        more = (f"the {self.candidates} distinct uses among the {CANDIDATES} chunks BM25 "
                f"ranks first for “{self.word}” ({index} may hold more)" if self.capped else
                f"all {self.candidates} distinct uses of “{self.word}” in {index}")
        return (f"The {len(self.found)} closest of {more}, ranked by the cosine of the word's "
                f"layer-{self.layer} vector with {anchor}'s. A use found twice (in two "
                "overlapping chunks, or in two copies of one text) is listed once.")


def word_usages(index, word: str, context: str, *, layer: int,
                trajectory: Callable[[Sequence[str], str], object], top: int = 5,
                candidates: int = CANDIDATES, readers: Iterable[str] | None = None) -> Usages:
    """Chunks of `index` using `word` the way `context` does, at `layer` (0 = embeddings).

    `trajectory(contexts, word)` returns an `encoder.WordTrajectory` (e.g. bound to the encoder
    the caller inspects with). Where no chunk contains the word, `nearest` holds the `top`
    chunks nearest to `context` as a whole (dense search). `readers`: only the chunks of
    documents they may see (`indexer.access`; None: every document)."""
    readers = check_readers(readers)
    hits = index.search(word, k=candidates, mode="lexical", per_chunk=True, readers=readers)
    found = distinct([(hit, w) for hit in hits if (w := window(hit.text, word)) is not None])
    if not found:
        return Usages(word, layer, 0, nearest=index.search(context, k=top, readers=readers))
    traj = trajectory((context, *[text for _, (text, _) in found]), word)
    similarity = traj.cosine[layer, 0, 1:]  # the context against each candidate
    return Usages(word, layer, len(found), found=[
        Usage(found[i][0], *found[i][1], float(similarity[i])) for i in rank(similarity, top)],
        capped=len(hits) >= candidates)


def distinct(found: list[tuple[Hit, tuple[str, tuple[int, int]]]]) -> list:
    """One entry per use: the same occurrence in two overlapping chunks of a document (the same
    character offset), or the same passage in two documents (duplicates), is kept once."""
    seen: set = set()
    out = []
    for hit, (text, span) in found:
        keys = {(hit.doc_id, hit.start + hit.text.lower().find(text[span[0]:span[1]].lower())),
                text}
        if not keys & seen:
            seen |= keys
            out.append((hit, (text, span)))
    return out


def window(text: str, word: str, width: int = 160) -> tuple[str, tuple[int, int]] | None:
    """`text` cropped to `width` characters either side of the word's first (case-insensitive)
    occurrence, and the word's span in the crop; None where the word does not occur."""
    start = text.lower().find(word.lower())
    if start < 0:
        return None
    a, b = max(0, start - width), min(len(text), start + len(word) + width)
    return text[a:b], (start - a, start - a + len(word))


def rank(similarities: Sequence[float], top: int) -> list[int]:
    """Indices of the `top` most similar candidates, most similar first (stable on ties)."""
    order = np.argsort(-np.asarray(similarities, dtype=float), kind="stable")
    return [int(i) for i in order[:top]]
