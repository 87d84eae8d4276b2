"""BM25 with `bm25s`, and its one tokenizer: English lower-cased, stop words out, Snowball stems;
Chinese as `jieba` words; in one pass. The indexer's lexical search and training's hard-negative
mining both use it (imported on its own: `from common.lexical import ...`)."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

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


def tokenize(text: str) -> list[str]:
    """Lexical tokens of `text`: stemmed English words and jieba-segmented Chinese words."""
    out: list[str] = []
    stop = _stopwords()
    for piece in _WORD.findall(text.lower()):
        if _CJK.match(piece):
            out.extend(w for w in _jieba().lcut(piece) if w.strip())
        elif piece not in stop:
            out.append(piece)
    stemmer = _stemmer()
    return [w if _CJK.match(w) else stemmer.stemWord(w) for w in out]


class LexicalIndex:
    """BM25 over a list of token lists; position i is `ids[i]` (an index's chunk id, or any
    integer key: a document's position)."""

    def __init__(self, retriever, ids: np.ndarray) -> None:
        self.retriever = retriever
        self.ids = ids  # (n,) int64 chunk ids

    @classmethod
    def build(cls, ids: Sequence[int], tokens: Sequence[Sequence[str]],
              params: Bm25Params = Bm25Params()) -> LexicalIndex:
        bm25s = _bm25s()
        retriever = bm25s.BM25(k1=params.k1, b=params.b)
        if len(ids):
            retriever.index([list(t) or [""] for t in tokens], show_progress=False)
        return cls(retriever, np.asarray(ids, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.ids)

    def search(
        self, queries: Sequence[str], k: int, allowed: set[int] | None = None
    ) -> list[list[tuple[int, float]]]:
        """Top-k (chunk id, BM25 score) per query; only chunks in `allowed` when given.

        Chunks that share no term with the query (score 0) are not returned.
        """
        if not len(self.ids):
            return [[] for _ in queries]
        mask = None
        if allowed is not None:
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
        from bm25s.selection import topk

        return topk(self.retriever.get_scores(tokens, weight_mask=mask), k=k, sorted=True)

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / "ids.npy", self.ids, allow_pickle=False)
        if len(self.ids):
            self.retriever.save(str(folder), show_progress=False)

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex:
        bm25s = _bm25s()
        ids = np.load(folder / "ids.npy", allow_pickle=False)
        if not len(ids):
            return cls(bm25s.BM25(), ids)
        return cls(bm25s.BM25.load(str(folder), show_progress=False, allow_pickle=False), ids)
