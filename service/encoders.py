"""One encoder per model per process: loaded once under a lock, whoever asks first, and shared
by every request and index that needs it (each wrapped in a `BatchedEncoder`)."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from encoder import load_encoder
from indexer.index_encoder import index_backend, load_index_encoder

from .batching import BatchedEncoder
from .config import ServiceConfig

log = logging.getLogger("bertscope.service")


class Encoders:
    """(model, backend) → `BatchedEncoder`, loaded by the first request that needs it while
    the others wait: eight threads asking for the same model at once load it once."""

    def __init__(self, config: ServiceConfig,
                 load: Callable[[dict, Path], object] = load_index_encoder,
                 load_model: Callable[..., object] = load_encoder) -> None:
        self._config = config
        self._load = load  # (manifest, folder) -> Encoder; a test passes a counting one
        self._load_model = load_model
        self._loaded: dict[tuple[str, str], BatchedEncoder] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()
        self.loads = 0  # models loaded by this process (the first-load test reads it)
        self.observe = None  # (model, texts in one encode call, waits) -> None: the metrics

    def for_index(self, manifest: dict, folder: Path | str) -> BatchedEncoder:
        """The encoder the index at `folder` (a path or an address) needs: its model on its own
        backend."""
        key = (str(manifest["encoder"]["load_as"]), index_backend(manifest, folder))
        return self._get(key, lambda: self._load(manifest, folder))

    def for_model(self, name: str) -> BatchedEncoder:
        """A bundled model no index under the root uses, on `auto` (the fastest that passed
        the fidelity gate)."""
        return self._get((name, "auto"), lambda: self._load_model(name, backend="auto"))

    def _get(self, key: tuple[str, str], load: Callable[[], object]) -> BatchedEncoder:
        enc = self._loaded.get(key)
        if enc is not None:
            return enc
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            enc = self._loaded.get(key)
            if enc is None:
                log.info("loading encoder %s on %s (the first request for it)", *key)
                base = load()
                self.loads += 1
                observe = self.observe
                enc = BatchedEncoder(base, batching=self._config.batching,
                                     max_texts=self._config.max_batch_texts,
                                     max_wait_s=self._config.max_wait_ms / 1000,
                                     observe=None if observe is None else
                                     functools.partial(observe, base.name))
                self._loaded[key] = enc
        return enc

    def loaded(self) -> dict[tuple[str, str], BatchedEncoder]:
        return dict(self._loaded)
