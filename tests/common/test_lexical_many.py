"""`lexical_texts`: the joined tokens of each text, in order, the same in worker processes as in
this one, with progress after each batch."""

from __future__ import annotations

from common import lexical_many
from common.lexical import tokenize


def test_worker_processes_give_what_one_process_gives_in_order(monkeypatch):
    texts = [f"Apples and pears number {i}; 苹果{i % 7}个很好吃。" for i in range(2_500)]
    monkeypatch.setattr(lexical_many, "POOL_MIN", 100)
    monkeypatch.setattr(lexical_many, "BATCH", 300)
    seen = []
    pooled = lexical_many.lexical_texts(texts, lambda done, total: seen.append((done, total)),
                                        workers=2)
    assert pooled == [" ".join(tokenize(t)) for t in texts]
    assert seen[0] == (0, 2_500) and seen[-1] == (2_500, 2_500)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len(seen) == 10
    assert lexical_many.lexical_texts(texts[:5], workers=2) == pooled[:5]  # too few: here
    assert lexical_many.lexical_texts([]) == []


def _private_kb(texts: list[str]) -> list[str]:
    """What a worker has written of its own, once its garbage collector has run."""
    import gc

    gc.collect()
    with open("/proc/self/smaps_rollup") as fh:
        fields = dict(line.split(":", 1) for line in fh if ":" in line)
    return [fields["Private_Dirty"].split()[0]] * len(texts)


def test_workers_do_not_copy_the_callers_heap(monkeypatch):
    """A fork shares the caller's memory until written. A worker's garbage collector writes the
    header of every object it walks: without `gc.freeze` each worker copied the build's whole
    heap (at 1M chunks: GBs per worker)."""
    heap = [[i] for i in range(3_000_000)]  # ~300 MB of small objects the gc tracks
    monkeypatch.setattr(lexical_many, "_joined", _private_kb)
    monkeypatch.setattr(lexical_many, "POOL_MIN", 10)
    private = [int(kb) for kb in lexical_many.lexical_texts(["x"] * 40, workers=2)]
    # KB: copied, a worker writes the whole heap (>= 300 MB); frozen, what it writes of its own
    # does not grow with the heap (~80 MB in a test worker that ran many tests before)
    assert len(heap) and max(private) < 150_000, private
