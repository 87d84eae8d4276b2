"""Debian packages the product needs beside its Python ones (Tesseract for OCR; Chromium for the
browser tests), installed where absent by `apt-get`, root only, one installer on the machine at a
time (a machine-wide lock: two apt-gets at once fail on apt's own lock, and the loser's packages
would be skipped). Where installing cannot work, the caller gets the reason in words."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from .locks import FileLock

LOCK = "bertscope-tests-apt.lock"  # the name the browser tests' installer has always used


def ensure_packages(packages: Sequence[str], present: Callable[[], bool], *,
                    timeout_s: float = 900) -> str | None:
    """Install Debian `packages` unless `present()`; None when they are there afterwards, else
    why not (no apt-get, not root, apt-get's own error)."""
    if present():
        return None
    names = " ".join(packages)
    if not shutil.which("apt-get"):
        return f"no apt-get to install {names} (install them with this system's packages)"
    if os.geteuid() != 0:
        return f"installing {names} needs root: sudo apt-get install {names}"
    with FileLock(Path(tempfile.gettempdir()) / LOCK):
        if present():  # another process installed them while this one waited
            return None
        problem = apt_install(packages, timeout_s)
    if problem is None and not present():
        return f"apt-get installed {names}, but they are still not found"
    return problem


def apt_install(packages: Sequence[str], timeout_s: float = 900) -> str | None:
    """`apt-get update` then `apt-get install` of `packages` without their recommends; None on
    success, else apt-get's error."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages]
    for cmd in (["apt-get", "update", "-qq"], install):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
        if done.returncode != 0:
            return f"`{' '.join(cmd)}` failed: {done.stderr.strip()[-300:]}"
    return None
