"""bm25s's index, built from rows streamed one at a time. `bm25s.BM25.index` wants every document
as a Python list of token strings at once (at 1M chunks of ~100 tokens: ~100M string objects,
several GB) and keeps them; here each row becomes its (term, count) postings in numpy buffers (12
bytes each) and is dropped. The scores are bm25s's own: its term-frequency and idf functions, the
same CSC layout, so `BM25.get_scores`, `save` and `load` work on it unchanged and score exactly as
an index `bm25s` built itself."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import numpy as np

GROW = 1 << 20  # postings added to the buffers at a time


class _Buffer:
    """A growing numpy array."""

    def __init__(self, dtype) -> None:
        self.data = np.empty(GROW, dtype=dtype)
        self.size = 0

    def extend(self, values) -> None:
        n = len(values)
        if self.size + n > len(self.data):
            grown = np.empty(max(2 * len(self.data), self.size + n), dtype=self.data.dtype)
            grown[:self.size] = self.data[:self.size]
            self.data = grown
        self.data[self.size:self.size + n] = values
        self.size += n

    def array(self) -> np.ndarray:
        return self.data[:self.size]


def build_bm25(rows: Iterable[Sequence[str]], k1: float, b: float, batch: int = 8192):
    """A `bm25s.BM25` (Lucene scoring) over `rows`, each a document's tokens (an empty one
    scores as bm25s scores it: as the one empty token). Rows are counted `batch` at a time:
    their tokens hashed to term ids by pandas' `factorize` and (row, term) pairs counted by
    numpy, where a Counter and a dict lookup per row took ~15 us a chunk."""
    import bm25s
    from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

    retriever = bm25s.BM25(k1=k1, b=b)
    vocab: dict[str, int] = {}
    terms, counts, docs = _Buffer(np.int32), _Buffer(np.float32), _Buffer(np.int32)
    lengths = _Buffer(np.int64)
    first = 0
    for part in batches(rows, batch):
        term, tf, row, length = count_batch(part, vocab)
        terms.extend(term)
        counts.extend(tf)
        docs.extend(row + first)
        lengths.extend(length)
        first += len(part)
    n_docs, n_vocab = lengths.size, len(vocab)
    term, tf, row, length = terms.array(), counts.array(), docs.array(), lengths.array()
    df = np.bincount(term, minlength=n_vocab)
    idf = np.zeros(n_vocab, dtype=retriever.dtype)
    score_idf = _select_idf_scorer(retriever.idf_method)  # a scalar function: once per value
    values, where = np.unique(df, return_inverse=True)
    idf[:] = np.array([score_idf(int(v), n_docs) if v else 0.0 for v in values.tolist()],
                      dtype=np.float64)[where]
    tfc = _select_tfc_scorer(retriever.method)(tf_array=tf, l_d=length[row],
                                               l_avg=length.mean(), k1=k1, b=b,
                                               delta=retriever.delta)
    scores = (idf[term] * tfc).astype(retriever.dtype)
    del tfc
    order = np.argsort(term, kind="stable")  # rows are in order: (term, row) sorted
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    retriever.scores = {"data": scores[order], "indices": row[order], "indptr": indptr,
                        "num_docs": n_docs}
    if "" not in vocab:
        vocab[""] = n_vocab  # what bm25s adds after building: no postings
    retriever.vocab_dict = vocab
    retriever.unique_token_ids_set = set(vocab.values())
    retriever.nonoccurrence_array = None
    return retriever


def batches(rows: Iterable[Sequence[str]], size: int):
    part: list[Sequence[str]] = []
    for tokens in rows:
        part.append(tokens)
        if len(part) == size:
            yield part
            part = []
    if part:
        yield part


def count_batch(part: list[Sequence[str]], vocab: dict[str, int]):
    """(term ids, counts, rows within `part`, row lengths) of a batch of rows, its postings
    ordered by row; new terms join `vocab` in order of first appearance."""
    import pandas as pd

    part = [list(t) or [""] for t in part]
    length = np.fromiter((len(t) for t in part), dtype=np.int64, count=len(part))
    flat = list(itertools.chain.from_iterable(part))
    codes, uniques = pd.factorize(np.asarray(flat, dtype=object), sort=False)
    ids = np.fromiter((vocab.setdefault(u, len(vocab)) for u in uniques), dtype=np.int64,
                      count=len(uniques))
    row = np.repeat(np.arange(len(part), dtype=np.int64), length)
    pairs, tf = np.unique(row * (len(vocab) + 1) + ids[codes], return_counts=True)
    return ((pairs % (len(vocab) + 1)).astype(np.int32), tf.astype(np.float32),
            (pairs // (len(vocab) + 1)).astype(np.int32), length)
