"""A real disk that fills up, for the full-disk cases of the probe and the tests: a small tmpfs
mounted in a folder (root only), and a file that takes all the space left; and a folder made
read-only for real (a read-only bind mount, as root ignores file modes)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class NoSmallDisk(RuntimeError):
    """A tmpfs cannot be mounted here (not root, or no mount permission in a container)."""


@contextmanager
def small_disk(folder: Path, size: str = "3m") -> Iterator[Path]:
    """`folder`, created, with a `size` tmpfs mounted on it until the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise NoSmallDisk(f"cannot mount a tmpfs at {folder} ({done.stderr.strip()[:80]})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(disk: Path) -> Path:
    """Write `disk/filler` until the disk is full; returns it (unlink it to free the space)."""
    filler = disk / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
    return filler


@contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """`folder` read-only until the block ends: bound read-only over itself (root), else its
    mode 0o555. Raises `NoSmallDisk` where neither holds (root without mount permission)."""
    if os.geteuid() != 0:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(mode)
        return
    for argv in (["mount", "--bind", str(folder), str(folder)],
                 ["mount", "-o", "remount,ro,bind", str(folder)]):
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], check=False, capture_output=True)
            raise NoSmallDisk(f"cannot mount {folder} read-only ({done.stderr.strip()[:80]})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
