"""Dynamic batching: texts that concurrent requests ask one encoder for are encoded in one call.

As text-embeddings-inference does, a worker thread of the encoder takes the first waiting request,
then every request that arrives within `max_wait_s` (or is already queued) up to `max_texts`
texts, and encodes them together; each request gets its own rows back. Two workers take turns,
so one gathers the next batch while the other's runs. A worker waits for company only while the
other's batch runs, and a request that finds the batcher idle (no batch running, none queued)
is encoded on its own thread at once, with no hop to a worker and back; under load the encoder
runs fewer, larger batches.

`BatchedEncoder` is an `encoder.Encoder` whose `encode` goes through a `Batcher`, so an index
opened with it (`SemanticIndex.open(path, encoder=...)`) batches its query encodings too; it
also records, per thread, how long this thread's encodings took (the service's `timings`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np

from encoder import Encoder, check_texts

__all__ = ["BatchedEncoder", "Batcher", "encode_seconds"]

SUB_BATCH = 8  # texts of similar length per model call (see BatchedEncoder._encode_now)
_clock = threading.local()  # .seconds: this thread's time spent encoding since last reset


def encode_seconds(reset: bool = False) -> float:
    """Seconds this thread spent in `BatchedEncoder.encode` (waiting for its batch included)
    since the last reset."""
    seconds = getattr(_clock, "seconds", 0.0)
    if reset:
        _clock.seconds = 0.0
    return seconds


@dataclass
class _Request:
    texts: list[str]
    key: tuple  # (prompt, normalize): requests batch together only with equal keys
    future: Future = field(default_factory=Future)
    queued: float = field(default_factory=time.perf_counter)


class Batcher:
    """Collects concurrent `submit` calls and runs them as few `encode_fn` calls as it can."""

    def __init__(self, encode_fn, *, max_texts: int = 64, max_wait_s: float = 0.002,
                 name: str = "encoder", workers: int = 2, observe=None) -> None:
        self._encode = encode_fn  # (texts, prompt=..., normalize=...) -> np.ndarray
        self._observe = observe  # (texts in the call, each request's wait in s) -> None
        self.max_texts = max_texts
        self.max_wait_s = max_wait_s
        self._queue: queue.Queue[_Request] = queue.Queue()
        self.calls = 0  # encode calls made (a test and the bench read them)
        self.requests = 0
        self._running = 0  # batches being encoded now (by workers or submitting threads)
        self._workers = 0
        self._count = threading.Lock()
        self.name = name
        # two workers: one gathers (and tokenizes) the next batch while the other's runs
        self.start(workers)

    def start(self, workers: int) -> None:
        """Start `workers` more worker threads (a Batcher made with none holds what is
        submitted until then)."""
        self._workers += workers
        for _ in range(workers):
            threading.Thread(target=self._run, name=f"batcher-{self.name}", daemon=True).start()

    def pending(self) -> int:
        """Requests waiting for a worker."""
        return self._queue.qsize()

    def submit(self, texts: list[str], *, prompt: str | None, normalize: bool) -> np.ndarray:
        request = _Request(texts, (prompt, normalize))
        if self._claim_idle():  # nothing to batch with: encode here, no thread hop (~0.3 ms)
            try:
                self._encode_group([request], prompt, normalize)
            finally:
                with self._count:
                    self._running -= 1
        else:
            self._queue.put(request)
        return request.future.result()

    def _claim_idle(self) -> bool:
        """Whether the batcher is idle (then counted as running a batch: the caller's); never
        with no workers started (such a batcher holds what is submitted)."""
        with self._count:
            if self._workers and not self._running and self._queue.empty():
                self._running += 1
                return True
        return False

    def _take(self) -> list[_Request]:
        batch = [self._queue.get()]
        size = len(batch[0].texts)
        # wait for company only while the other worker's batch runs (the model is busy anyway);
        # on an idle server a lone request goes straight to the model
        wait = self.max_wait_s if self._running else 0.0
        deadline = time.perf_counter() + wait
        while size < self.max_texts:
            try:
                wait = deadline - time.perf_counter()
                item = self._queue.get(timeout=wait) if wait > 0 else self._queue.get_nowait()
            except queue.Empty:
                break
            batch.append(item)
            size += len(item.texts)
        return batch

    def _run(self) -> None:
        while True:
            batch = self._take()
            groups: dict[tuple, list[_Request]] = {}
            for request in batch:
                groups.setdefault(request.key, []).append(request)
            with self._count:
                self._running += 1
            try:
                for (prompt, normalize), requests in groups.items():
                    self._encode_group(requests, prompt, normalize)
            finally:
                with self._count:
                    self._running -= 1

    def _encode_group(self, requests: list[_Request], prompt, normalize) -> None:
        texts = [t for r in requests for t in r.texts]
        if self._observe is not None:
            started = time.perf_counter()
            self._observe(len(texts), [started - r.queued for r in requests])
        try:
            vectors = self._encode(texts, prompt=prompt, normalize=normalize)
        except BaseException as exc:  # noqa: BLE001 - handed to every waiting request
            for r in requests:
                r.future.set_exception(exc)
            return
        with self._count:
            self.calls += 1
            self.requests += len(requests)
        start = 0
        for r in requests:
            r.future.set_result(vectors[start:start + len(r.texts)])
            start += len(r.texts)


class BatchedEncoder(Encoder):
    """`base` (a loaded `Encoder`, whose state it shares) with `encode` batched across threads;
    `batcher` None encodes directly (batching off, for measurement)."""

    def __init__(self, base: Encoder, *, batching: bool = True, max_texts: int = 64,
                 max_wait_s: float = 0.002, observe=None) -> None:  # noqa: D107
        self.__dict__.update(base.__dict__)  # no Encoder.__init__: its state is shared
        self.base = base
        self._observe = observe  # (texts in one encode call, each request's wait) -> None
        self.batcher = Batcher(self._encode_now, max_texts=max_texts, max_wait_s=max_wait_s,
                               name=base.name, observe=observe) if batching else None

    def _encode_now(self, texts: list[str], *, prompt: str | None, normalize: bool):
        # the encoder sorts a call's texts by length and runs them SUB_BATCH at a time, so
        # each model call pads little: a batch padded to its longest runs far more tokens than
        # its texts hold, and CPU time follows tokens (the measurement: docs/API.md)
        return self.base.encode(texts, prompt=prompt, normalize=normalize,
                                batch_size=SUB_BATCH)

    def encode(self, texts: str | Sequence[str], **options) -> np.ndarray:
        started = time.perf_counter()
        try:
            if self.batcher is None or set(options) - {"prompt", "normalize"}:
                if self._observe is not None:
                    self._observe(1 if isinstance(texts, str) else len(texts), [0.0])
                return self.base.encode(texts, **options)
            items = check_texts(texts)  # a bad input fails its own request, not the batch
            if not items:
                return self.base.encode(items, **options)
            return self.batcher.submit(items, prompt=options.get("prompt"),
                                       normalize=options.get("normalize", True))
        finally:
            _clock.seconds = getattr(_clock, "seconds", 0.0) + time.perf_counter() - started
