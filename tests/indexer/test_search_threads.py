"""FAISS runs a small batch of queries on one OpenMP thread (its threads' start and spin-wait
cost more than they save there), a large one on `batch_threads`' count where one is set, and
leaves the caller's thread count as it found it."""

from __future__ import annotations

import threading

import faiss
import pytest

from indexer import SemanticIndex
from indexer.search_threads import ONE_THREAD_QUERIES, batch_threads, faiss_threads


@pytest.fixture
def two_threads():
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(2)
    yield
    faiss.omp_set_num_threads(before)


def threads_seen_by_faiss(index: SemanticIndex, queries) -> list[int]:
    seen = []
    search = index.vectors.search

    def spy(*args, **kwargs):
        seen.append(faiss.omp_get_max_threads())
        return search(*args, **kwargs)

    index.vectors.search = spy
    try:
        index.search(queries, k=3)
    finally:
        del index.vectors.search
    return seen


def test_a_single_query_searches_on_one_thread_and_restores_the_count(
        flat_index, tiny_encoder, two_threads):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert threads_seen_by_faiss(index, "alpha beta") == [1]
    assert faiss.omp_get_max_threads() == 2


def test_a_large_batch_keeps_the_callers_threads(flat_index, tiny_encoder, two_threads):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    queries = [f"query {i}" for i in range(ONE_THREAD_QUERIES + 1)]
    assert set(threads_seen_by_faiss(index, queries)) == {2}


def test_batch_threads_sets_a_large_batch_s_count_only_inside_faiss(flat_index, tiny_encoder,
                                                                      two_threads):
    """The service's --faiss-threads: set around FAISS's call, never left on the thread (the
    encoder there reads the same OpenMP count)."""
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    queries = [f"query {i}" for i in range(ONE_THREAD_QUERIES + 1)]
    with batch_threads(3):
        assert set(threads_seen_by_faiss(index, queries)) == {3}
        assert faiss.omp_get_max_threads() == 2
        assert threads_seen_by_faiss(index, "alpha") == [1]
    assert set(threads_seen_by_faiss(index, queries)) == {2}


def test_the_count_is_restored_when_the_search_raises(two_threads):
    with pytest.raises(RuntimeError), faiss_threads(1):
        assert faiss.omp_get_max_threads() == 1
        raise RuntimeError("FAISS failed")
    assert faiss.omp_get_max_threads() == 2


def test_a_search_on_another_thread_leaves_this_threads_count(flat_index, tiny_encoder,
                                                                two_threads):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    inside = threading.Event()
    release = threading.Event()
    search = index.vectors.search

    def slow(*args, **kwargs):  # hold the worker inside FAISS's one-thread section
        inside.set()
        release.wait(10)
        return search(*args, **kwargs)

    index.vectors.search = slow
    worker = threading.Thread(target=index.search, args=("alpha",), kwargs={"k": 3})
    worker.start()
    try:
        assert inside.wait(10)
        assert faiss.omp_get_max_threads() == 2
    finally:
        release.set()
        worker.join(10)
        del index.vectors.search
