"""BM25 whose writes cost the change, not the index: a base segment, a delta segment of the chunks
added since, and the ids of chunks deleted since (`bm25_segment`). Term frequencies are kept,
not bm25s's precomputed scores, and each query term is scored with bm25s's Lucene formula under
the live statistics (N, df, the average length), so results equal those of a fresh build over
the live chunks. A change appends to the delta; once the delta and the deletions pass
`MERGE_SHARE` of the base, the caller builds a new base (`from_rows`) instead.

A folder holds every file of its version (`segments.json` names the format); a save hard-links
the base files of the version it changes, whose base is the same, rather than writing them."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from .bm25_segment import Rows, Segment, Vocab, link, load_terms, save_terms
from .lexical import Bm25Params, LexicalIndex, top_k
from .npy import load_npy

SEGMENTS = "segments.json"
FORMAT = "bertscope-bm25-segments"
DEFAULTS = Bm25Params()
MERGE_SHARE = 0.15  # delta chunks + deleted ones past this share of the base: a new base


@lru_cache(maxsize=1)
def _idf():
    from bm25s.scoring import _select_idf_scorer

    return _select_idf_scorer("lucene")


class SegmentedLexical(LexicalIndex):
    """`LexicalIndex.search` over base + delta segments less the deleted chunks. Position i is
    chunk `ids[i]`: the base's positions, then the delta's (ids ascending throughout, as in a
    fresh build, so ties rank the same); deleted positions score 0."""

    def __init__(self, params: Bm25Params, base_terms: list[str], added: dict[str, int],
                 base: Segment, delta: Segment, df: np.ndarray, deleted: np.ndarray,
                 live: int, tokens: int, tag: str, base_vocab: dict[str, int] | None = None
                 ) -> None:
        self.params = params
        self.base_terms = base_terms  # never changed: versions share it
        self.vocab = Vocab(base_vocab if base_vocab is not None else
                           {t: i for i, t in enumerate(base_terms)}, added)
        self.base, self.delta = base, delta
        self.df = df  # (terms,) live chunks holding each term
        self.deleted = deleted  # sorted chunk ids of base or delta chunks deleted since
        self.live, self.tokens = live, tokens  # live chunks, their tokens in all
        self.tag = tag  # names the base segment
        ids = np.concatenate([base.ids, delta.ids]) if len(delta) else np.asarray(base.ids)
        lengths = np.concatenate([base.lengths, delta.lengths]) if len(delta) else base.lengths
        average = tokens / live if live else 1.0  # what `length.mean()` of a build gives
        k1, b = params.k1, params.b
        self._norm = k1 * ((1 - b) + b * np.asarray(lengths) / average)  # bm25s's, per chunk
        self._dead = np.searchsorted(ids, deleted)
        super().__init__(None, ids)

    # -- building --------------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, str]], params: Bm25Params = DEFAULTS
                  ) -> SegmentedLexical:
        """A base segment over (id, tokens joined by spaces) rows in id order, no delta."""
        vocab: dict[str, int] = {}
        counted = Rows.count(rows, vocab)
        df = np.bincount(counted.term, minlength=len(vocab)).astype(np.int32)
        return cls(params, list(vocab), {}, Segment.of(counted, len(vocab)), Segment.empty(),
                   df, np.empty(0, np.int64), len(counted.ids), int(counted.lengths.sum()),
                   uuid.uuid4().hex, vocab)

    @classmethod
    def build(cls, ids: Sequence[int], tokens: Iterable[Sequence[str]],
              params: Bm25Params = DEFAULTS) -> SegmentedLexical:
        return cls.from_rows(((int(i), " ".join(t)) for i, t in zip(ids, tokens, strict=True)),
                             params)

    def changed(self, added: Iterable[tuple[int, str]], removed: Iterable[tuple[int, str]]
                ) -> SegmentedLexical | None:
        """This index after adding `added` rows (ids above every id here, ascending) and
        deleting the live chunks `removed` (their rows as added); None when the change would
        pass `MERGE_SHARE` of the base: build anew then. This index is left as it was."""
        vocab = Vocab(self.vocab.base, self.vocab.added)
        new = Rows.count(added, vocab)
        gone = Rows.count(removed, vocab)
        deleted = np.union1d(self.deleted, gone.ids).astype(np.int64)
        if len(self.delta) + len(new.ids) + len(deleted) > MERGE_SHARE * len(self.base):
            return None
        n_terms = len(vocab)
        df = np.zeros(n_terms, dtype=np.int32)
        df[:len(self.df)] = self.df
        df += np.bincount(new.term, minlength=n_terms).astype(np.int32)
        df -= np.bincount(gone.term, minlength=n_terms).astype(np.int32)
        return SegmentedLexical(
            self.params, self.base_terms, vocab.added, self.base,
            self.delta.appended(new, n_terms), df, deleted,
            self.live + len(new.ids) - len(gone.ids),
            self.tokens + int(new.lengths.sum()) - int(gone.lengths.sum()), self.tag,
            self.vocab.base)

    # -- searching -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.live

    def _top_k(self, tokens: list[str], k: int, mask: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray]:
        return top_k(self._scores(tokens, mask), k)

    def _scores(self, tokens: list[str], mask: np.ndarray | None) -> np.ndarray:
        """What a fresh bm25s build over the live chunks sums: per query term (repeats count
        again) idf under the live N and df times the Lucene term-frequency part, as float32,
        added in query order. Computed over the term's postings only."""
        scores = np.zeros(len(self.ids), dtype=np.float32)
        idf_of, norm, first = _idf(), self._norm, len(self.base)
        for token in tokens:
            term = self.vocab.get(token)
            if term is None or term >= len(self.df) or not self.df[term]:
                continue  # no live chunk holds it: a fresh build would not know it
            idf = np.float32(idf_of(int(self.df[term]), self.live))
            for segment, offset in ((self.base, 0), (self.delta, first)):
                docs, tf = segment.postings(term)
                if len(docs):  # idf * tf / (norm + tf), in float64 as bm25s, in place
                    at = docs + offset if offset else docs
                    part = norm[at]
                    part += tf
                    np.divide(tf, part, out=part)
                    part *= idf
                    scores[at] += part.astype(np.float32)
        scores[self._dead] = 0
        if mask is not None:
            scores *= mask
        return scores

    # -- files -----------------------------------------------------------------------------------
    def save(self, folder: Path, previous: Path | None = None) -> None:
        """Every file of this version into `folder`; those of the base hard-linked from
        `previous` (the bm25 folder of the version this one changes) when it has this base."""
        folder.mkdir(parents=True, exist_ok=True)
        source = previous if previous is not None and _tag(previous) == self.tag else None
        self.base.save(folder, "base", source)
        if source is None or not link(source / "base.terms.json", folder / "base.terms.json"):
            save_terms(folder / "base.terms.json", self.base_terms)
        self.delta.save(folder, "delta")
        save_terms(folder / "delta.terms.json", list(self.vocab.added))
        np.save(folder / "df.npy", np.asarray(self.df), allow_pickle=False)
        np.save(folder / "deleted.npy", np.asarray(self.deleted), allow_pickle=False)
        (folder / SEGMENTS).write_text(json.dumps({
            "format": FORMAT, "version": 1, "base": self.tag, "k1": self.params.k1,
            "b": self.params.b, "live": self.live, "tokens": self.tokens}) + "\n")

    @classmethod
    def load(cls, folder: Path, *, mapped: bool = False) -> SegmentedLexical:
        meta = json.loads((folder / SEGMENTS).read_text(encoding="utf-8"))
        if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != 1:
            raise ValueError(f"{SEGMENTS} is not a version 1 {FORMAT} file")
        base_terms = load_terms(folder / "base.terms.json")
        added = {t: len(base_terms) + i
                 for i, t in enumerate(load_terms(folder / "delta.terms.json"))}
        df = load_npy(folder / "df.npy", mapped=mapped)
        if len(df) != len(base_terms) + len(added):
            raise ValueError(f"df.npy holds {len(df)} terms, the vocabulary "
                             f"{len(base_terms) + len(added)}")
        return cls(Bm25Params(meta["k1"], meta["b"]), base_terms, added,
                   Segment.load(folder, "base", mapped=mapped),
                   Segment.load(folder, "delta", mapped=mapped), df,
                   load_npy(folder / "deleted.npy", mapped=mapped), int(meta["live"]),
                   int(meta["tokens"]), str(meta["base"]))


def _tag(folder: Path) -> str | None:
    try:
        return json.loads((folder / SEGMENTS).read_text(encoding="utf-8")).get("base")
    except (OSError, ValueError, AttributeError):
        return None


def load_lexical(folder: Path, *, mapped: bool = False) -> LexicalIndex:
    """The BM25 index saved in `folder`: segments, or bm25s's own files (an index written before
    segments, searched as it was; its next save writes segments)."""
    if (folder / SEGMENTS).exists():
        return SegmentedLexical.load(folder, mapped=mapped)
    return LexicalIndex.load(folder, mapped=mapped)
