"""BM25 with `bm25s`, and its one tokenizer: English lower-cased, stop words out, Snowball stems;
Chinese as `jieba` words; in one pass. The indexer's lexical search and training's hard-negative
mining both use it (imported on its own: `from common.lexical import ...`)."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .npy import NPY_LOCK, load_npy

_WORD = re.compile(r"[0-9a-z]+(?:['’][a-z]+)?|[\u3400-\u9fff\uf900-\ufaff]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Bm25Params:
    """BM25's term-frequency saturation `k1` and length normalisation `b` (bm25s's Lucene
    scoring; its defaults). Lower k1 counts repeats of a query word less."""

    k1: float = 1.5
    b: float = 0.75

    def __post_init__(self) -> None:
        for name in ("k1", "b"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not math.isfinite(value):
                raise ValueError(f"BM25 {name} must be a finite number, not {value!r}")
        if self.k1 < 0 or not 0 <= self.b <= 1:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, not k1={self.k1}, b={self.b}")

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def of(cls, manifest: Mapping) -> Bm25Params:
        """An index's parameters (indexes built before they were recorded used the defaults)."""
        return cls(**manifest.get("bm25", {}))


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def _bm25s():
    """`bm25s`, its logger quietened: bm25s sets it to DEBUG on import, so its "Building index
    from tokens" would print under any root level (the CLI's is WARNING)."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


_STEMS: dict[str, str] = {}  # word -> stem, up to STEMS_KEPT words
STEMS_KEPT = 1_000_000


def _stem_words(words: list[str]) -> list[str]:
    """Snowball stems of `words`, looked up in a dict first (a corpus repeats its words)."""
    stems = _STEMS
    out = [stems.get(w) for w in words]
    if None in out:
        missing = [w for w, s in zip(words, out, strict=True) if s is None]
        if len(stems) > STEMS_KEPT:
            stems.clear()
        stems.update(zip(missing, _stemmer().stemWords(missing), strict=True))
        out = [stems[w] for w in words]
    return out


def tokenize(text: str) -> list[str]:
    """Lexical tokens of `text`: stemmed English words and jieba-segmented Chinese words. English
    runs are stemmed a list at a time (PyStemmer's C loop): a build tokenizes every chunk, and
    one word at a time cost ~1 ms per 1,400-character passage."""
    lowered = text.lower()
    stop = _stopwords()
    stem = _stem_words
    if _CJK.search(lowered) is None:  # no Chinese: one list, one call
        return stem([w for w in _WORD.findall(lowered) if w not in stop])
    out: list[str] = []
    latin: list[str] = []
    for piece in _WORD.findall(lowered):
        if _CJK.match(piece):
            if latin:
                out.extend(stem(latin))
                latin = []
            out.extend(w for w in _jieba().lcut(piece) if w.strip())
        elif piece not in stop:
            latin.append(piece)
    if latin:
        out.extend(stem(latin))
    return out


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores, positions) of the `k` best, best first, ties by position: chosen among the
    positions some query term touched (non-zero), not among all of them (at 1M chunks a
    partition of every score took ~60 ms a query; a query's terms touch a small share)."""
    touched = np.flatnonzero(scores)  # ascending positions
    if len(touched) > k:
        values = scores[touched]
        kth = np.partition(values, len(values) - k)[len(values) - k]  # the k-th best score
        above = touched[values > kth]
        touched = np.concatenate([above, touched[values == kth][:k - len(above)]])
    order = np.lexsort((touched, -scores[touched]))
    return scores[touched[order]], touched[order]


class LexicalIndex:
    """BM25 over a list of token lists; position i is `ids[i]` (an index's chunk id, or any
    integer key: a document's position)."""

    def __init__(self, retriever, ids: np.ndarray) -> None:
        self.retriever = retriever
        self.ids = ids  # (n,) int64 chunk ids
        # ids 0..n-1 in order (a version without deletions): a mask over ids is one over
        # positions, read as it is where a copy into positions cost 0.2 ms a query at 100k
        self._positions = bool(len(ids)) and int(ids[0]) == 0 and \
            int(ids[-1]) == len(ids) - 1 and bool(np.all(np.diff(ids) == 1))

    @classmethod
    def build(cls, ids: Sequence[int], tokens: Iterable[Sequence[str]],
              params: Bm25Params = Bm25Params()) -> LexicalIndex:
        """BM25 over `tokens` (one sequence per id, read one at a time: see `bm25_build`)."""
        from .bm25_build import build_bm25

        _bm25s()  # its logger quietened
        ids = np.asarray(ids, dtype=np.int64)
        retriever = build_bm25(tokens, params.k1, params.b) if len(ids) else \
            _bm25s().BM25(k1=params.k1, b=params.b)
        return cls(retriever, ids)

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, str]], params: Bm25Params = Bm25Params()
                  ) -> LexicalIndex:
        """BM25 over (id, tokens joined by spaces) rows, streamed (an index store's rows)."""
        ids: list[int] = []

        def tokens():
            for row_id, lex in rows:
                ids.append(row_id)
                yield lex.split(" ") if lex else []

        from .bm25_build import build_bm25

        _bm25s()
        retriever = build_bm25(tokens(), params.k1, params.b)
        if not ids:
            return cls(_bm25s().BM25(k1=params.k1, b=params.b), np.empty(0, dtype=np.int64))
        return cls(retriever, np.asarray(ids, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.ids)

    def search(
        self, queries: Sequence[str], k: int, allowed: set[int] | np.ndarray | None = None
    ) -> list[list[tuple[int, float]]]:
        """Top-k (chunk id, BM25 score) per query; only chunks in `allowed` when given (a set of
        ids, or a boolean mask indexed by id: what a filter index gives, read in one step).

        Chunks that share no term with the query (score 0) are not returned.
        """
        if not len(self.ids):
            return [[] for _ in queries]
        mask = None
        if isinstance(allowed, np.ndarray) and self._positions and \
                len(allowed) >= len(self.ids) and \
                getattr(self.retriever, "backend", None) != "numba":
            mask = allowed[:len(self.ids)]  # position i is chunk i: the mask as it is
        elif isinstance(allowed, np.ndarray):
            inside = self.ids < len(allowed)
            mask = np.zeros(len(self.ids), dtype=np.float32)
            mask[inside] = allowed[self.ids[inside]]
        elif allowed is not None:
            mask = np.isin(self.ids, np.fromiter(allowed, dtype=np.int64)).astype(np.float32)
        k = min(k, len(self.ids))
        tokens = [tokenize(q) for q in queries]
        out: list[list[tuple[int, float]]] = [[] for _ in queries]
        asked = [i for i, t in enumerate(tokens) if t]  # only stop words / punctuation: no match
        if not asked:
            return out
        for i in asked:
            scores, docs = self._top_k(tokens[i], k, mask)
            keep = scores > 0
            out[i] = list(zip(self.ids[docs[keep]].tolist(), scores[keep].tolist(), strict=True))
        return out

    def _top_k(self, tokens: list[str], k: int, mask: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray]:
        """(scores, positions) of one query's top k, best first: what bm25s's `retrieve` does
        per query (`get_scores`, then its `topk`), without its per-call checks and progress bar
        (~0.3 ms a query). A numba retriever goes through `retrieve` (n_threads=0: a plain loop;
        any other count starts a thread pool on every call, ~7 ms a query on a loaded 2-core
        machine)."""
        if self.retriever.backend == "numba":
            docs, scores = self.retriever.retrieve([tokens], k=k, show_progress=False,
                                                   weight_mask=mask, n_threads=0)
            return scores[0], docs[0]
        return top_k(self._scores(tokens, mask), k)

    def _scores(self, tokens: list[str], mask: np.ndarray | None) -> np.ndarray:
        """bm25s's `get_scores`, summing each query term's postings with one fancy-index add
        (a term's postings name each document once) where bm25s calls `np.add.at`, which is
        several times slower: a common term has 100k+ postings at 1M chunks. Same sums, in the
        same order."""
        retriever = self.retriever
        ids = retriever.get_tokens_ids(tokens)
        data, indices, indptr = (retriever.scores[k] for k in ("data", "indices", "indptr"))
        scores = np.zeros(retriever.scores["num_docs"], dtype=retriever.dtype)
        for term in ids:
            if term + 1 >= len(indptr):
                continue  # the empty token bm25s adds to its vocabulary: no postings
            start, end = indptr[term], indptr[term + 1]
            scores[indices[start:end]] += data[start:end]
        if mask is not None:
            scores *= mask
        return scores

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / "ids.npy", self.ids, allow_pickle=False)
        if len(self.ids):
            self.retriever.save(str(folder), show_progress=False)

    @classmethod
    def load(cls, folder: Path, *, mapped: bool = False) -> LexicalIndex:
        """A saved index; `mapped`: its arrays mapped from the files (read as queries touch
        them), which searching never changes."""
        bm25s = _bm25s()
        ids = load_npy(folder / "ids.npy", mapped=mapped)
        if not len(ids):
            return cls(bm25s.BM25(), np.asarray(ids))
        with NPY_LOCK:  # bm25s reads its arrays with np.load
            index = bm25s.BM25.load(str(folder), show_progress=False, allow_pickle=False,
                                    mmap=mapped)
        return cls(index, np.asarray(ids))
