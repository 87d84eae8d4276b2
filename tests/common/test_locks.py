"""`common.locks.FileLock`: one holder at a time, across processes; `wait` bounds the wait; the
kernel drops a lock whose holder dies, even by kill -9."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from common.locks import FileLock, LockBusy

HOLD = """
import sys, time
from common.locks import FileLock
lock = FileLock(sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def holder(tmp_path):
    """A second process holding the lock on `tmp_path / "x.lock"` until it is killed."""
    path = tmp_path / "x.lock"
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "held"
    yield path, proc
    proc.kill()
    proc.wait()


def test_a_lock_held_elsewhere_is_busy_until_its_holder_dies(holder):
    path, proc = holder
    started = time.monotonic()
    with pytest.raises(LockBusy, match="locked by another process"):
        FileLock(path, wait=0.3).acquire()
    assert time.monotonic() - started >= 0.3  # it waited as long as asked
    proc.kill()  # kill -9: no cleanup runs in the holder
    proc.wait()
    with FileLock(path, wait=5) as lock:
        assert lock.held


def test_release_frees_the_lock_and_is_idempotent(tmp_path):
    path = tmp_path / "y.lock"
    first = FileLock(path, wait=0).acquire()
    with pytest.raises(LockBusy):
        FileLock(path, wait=0).acquire()  # another open file, same process: still exclusive
    first.release()
    first.release()
    assert not first.held
    with FileLock(path, wait=0) as again:
        assert again.held
