"""`KeyStore`: the keys file as the server sees it, re-read when it changes. A request looks at
the file's identity (mtime, size, inode) at most every `check_s` seconds (0.2 s), so a key
revoked in the file is refused within a second, with no restart. A file that cannot be read on
a re-read keeps the last good keys and logs why (once per version of the file).

Verifying a key costs one scrypt per stored hash (49 to 110 ms each here), so answers are cached in
memory by the key's sha256: a known key's principal, and a bounded set of wrong keys; both are
dropped whenever the file is re-read."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict
from pathlib import Path

from .keyfile import KeysFileError, read_keys
from .principals import Keyring, Principal

log = logging.getLogger("bertscope.service.keys")
WRONG_KEYS_CACHED = 4096


class KeyStore:
    MISS = object()  # `cached`'s answer for a key it has not verified yet

    def __init__(self, path: Path, *, check_s: float = 0.2) -> None:
        """Reads `path` now: a `KeysFileError` if it cannot be used."""
        self.path = Path(path)
        self.check_s = check_s
        self._lock = threading.Lock()
        self._stamp = self._stat()
        self.keyring: Keyring = read_keys(self.path)
        self._checked = time.monotonic()
        self._known: dict[bytes, Principal] = {}
        self._wrong: OrderedDict[bytes, None] = OrderedDict()
        self._bad_stamp = None  # the file version whose problem was logged
        self.reloads = 0

    def _stat(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev)

    def current(self) -> Keyring:
        """The keys in force, re-read first when the file changed (looked at every check_s)."""
        now = time.monotonic()
        if now - self._checked < self.check_s:
            return self.keyring
        with self._lock:
            if now - self._checked < self.check_s:
                return self.keyring
            self._checked = now
            stamp = self._stat()
            if stamp != self._stamp and stamp != self._bad_stamp:
                self._reload(stamp)
        return self.keyring

    def _reload(self, stamp) -> None:
        try:
            keyring = read_keys(self.path)
        except KeysFileError as exc:
            self._bad_stamp = stamp
            log.error("keys file not re-read, the last good keys stay in force: %s", exc)
            return
        self.keyring, self._stamp, self._bad_stamp = keyring, stamp, None
        self._known, self._wrong = {}, OrderedDict()
        self.reloads += 1
        log.info("keys file %s re-read: %d principals", self.path, len(keyring.principals))

    def cached(self, key: str):
        """The principal of `key` if this version of the file verified it already (None: a
        known wrong key), else `MISS` (then `principal` computes the hashes)."""
        self.current()
        digest = _digest(key)
        if digest in self._known:
            return self._known[digest]
        return None if digest in self._wrong else self.MISS

    def principal(self, key: str) -> Principal | None:
        """Who holds `key` under the keys in force, or None."""
        keyring = self.current()
        digest = _digest(key)
        known, wrong = self._known, self._wrong  # this version's caches (a reload swaps them)
        if digest in known:
            return known[digest]
        if digest in wrong:
            return None
        found = keyring.verify(key)
        if keyring is not self.keyring:
            return found  # the file changed meanwhile: do not cache under the new version
        if found is not None:
            known[digest] = found
        else:
            wrong[digest] = None
            while len(wrong) > WRONG_KEYS_CACHED:
                wrong.popitem(last=False)
        return found


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
