"""Peak memory of a command and everything it starts (milvus-lite serves from a child process):
its process tree's summed RSS, sampled every `every` seconds while it runs."""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass

import psutil


@dataclass
class Measured:
    seconds: float
    peak_rss_mb: float
    code: int
    tail: str  # the last lines it printed


def tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run_measured(argv: list[str], *, env: dict | None = None, every: float = 0.2,
                 timeout: float = 6 * 3600) -> Measured:
    """Run `argv`, return its wall time, peak tree RSS and exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        ps = psutil.Process(proc.pid)
        while not stop.is_set():
            try:
                peak = max(peak, tree_rss(ps))
            except psutil.Error:
                return
            stop.wait(every)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        stop.set()
        sampler.join()
    return Measured(time.perf_counter() - start, peak / 2**20, proc.returncode,
                    "\n".join(out.strip().splitlines()[-5:]))


def rss_mb() -> float:
    """This process's RSS now."""
    return psutil.Process().memory_info().rss / 2**20
