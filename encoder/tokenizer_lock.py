"""`tokenizer_lock(tokenizer)`: one lock per tokenizer object. A fast tokenizer keeps padding and
truncation as settings of its shared Rust object, and each call switches them to its own; two
threads calling it with different settings (a token count without padding, a model batch with
it) must take turns, or one tokenizes with the other's (a ragged batch, a cut count)."""

from __future__ import annotations

import threading
import weakref

__all__ = ["tokenizer_lock"]

_locks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_guard = threading.Lock()


def tokenizer_lock(tokenizer) -> threading.Lock:
    """The lock every settings-changing call of `tokenizer` holds."""
    with _guard:
        lock = _locks.get(tokenizer)
        if lock is None:
            lock = _locks[tokenizer] = threading.Lock()
        return lock
