"""The lexical tokens of many texts at once, on every CPU: a build tokenizes each chunk for BM25
(~1 ms a passage, jieba slower), which at 1M chunks is a quarter of an hour on one core while
the other waits. Texts go to worker processes in batches, answers come back in order."""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Sequence

from .lexical import tokenize

POOL_MIN = 20_000  # fewer texts are tokenized here: a pool's start costs about a second
BATCH = 2_000


def _joined(texts: list[str]) -> list[str]:
    return [" ".join(tokenize(t)) for t in texts]


def lexical_texts(texts: Sequence[str], progress: Callable[[int, int], None] | None = None,
                  workers: int | None = None) -> list[str]:
    """`" ".join(tokenize(text))` of each text, in order; `progress(done, total)` after each
    batch. `workers`: processes (default: the CPUs this process may use)."""
    report = progress or (lambda done, total: None)
    workers = workers or len(os.sched_getaffinity(0))
    batches = [list(texts[i:i + BATCH]) for i in range(0, len(texts), BATCH)]
    out: list[str] = []
    report(0, len(texts))
    if workers < 2 or len(texts) < POOL_MIN:
        for batch in batches:
            out.extend(_joined(batch))
            report(len(out), len(texts))
        return out
    # fork: a worker needs nothing of the caller but this module. (forkserver and spawn import
    # the caller's main script again in every worker: an unguarded script runs its build
    # there.) The caller's other threads (ONNX, OpenMP) do not follow into the fork, and the
    # worker calls into none of their libraries. The caller's objects are frozen first: a
    # worker's garbage collector would otherwise write to every one of them (their gc headers)
    # and so copy the whole heap, page by page (at 1M chunks: GBs per worker).
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for joined in pool.imap(_joined, batches):
                out.extend(joined)
                report(len(out), len(texts))
    finally:
        gc.unfreeze()
    return out
