"""How many OpenMP threads FAISS searches on: one for a small batch of queries, a caller's count
(`batch_threads`, the service's --faiss-threads) for a large one, and the calling thread's count
restored after FAISS's call."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import faiss

# FAISS spreads a batch's queries over OpenMP threads: a batch this small gains little and pays
# the threads' start, join and spin-wait (on a loaded 2-core machine one query and a batch of
# four each ran faster on one thread than on two; the faiss column of
# bench/results/search-hot.md is the same call inside index.search)
ONE_THREAD_QUERIES = 8


# FAISS's threads for a batch over ONE_THREAD_QUERIES, where a caller (the service's
# --faiss-threads) chose them: `batch_threads`; None keeps the calling thread's count
_BATCH_THREADS: ContextVar[int | None] = ContextVar("faiss_batch_threads", default=None)


@contextmanager
def batch_threads(n: int | None) -> Iterator[None]:
    """Searches in this block (this thread or task) run a large batch on `n` FAISS threads."""
    token = _BATCH_THREADS.set(n)
    try:
        yield
    finally:
        _BATCH_THREADS.reset(token)


@contextmanager
def faiss_threads(n_queries: int) -> Iterator[None]:
    """FAISS on one OpenMP thread while it searches `n_queries` <= ONE_THREAD_QUERIES queries;
    a larger batch on `batch_threads`' count where one was set, else the caller's. OpenMP keeps
    the count per calling thread, so concurrent searches on other threads are not touched, and
    the count is restored after: the encoder on this thread reads it too (torch's intra-op
    threads; an ONNX session's threads when one is made), so a FAISS setting must not outlive
    FAISS's call (the service's encodes ran on one thread of two while it did)."""
    before = faiss.omp_get_max_threads()
    want = 1 if n_queries <= ONE_THREAD_QUERIES else (_BATCH_THREADS.get() or before)
    if want == before:
        yield
        return
    faiss.omp_set_num_threads(want)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)
