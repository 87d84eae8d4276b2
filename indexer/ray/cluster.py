"""Ray itself: joining a cluster or starting one here, and how many workers it can run. The
only module of the Ray build that imports `ray`'s runtime setup; nothing here is imported by a
local build."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path

from ..errors import IndexerError

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]  # on the workers' PYTHONPATH
TOKEN = Path.home() / ".ray" / "auth_token"  # Ray's default token file


def local_cpus() -> int:
    """The CPUs this process may run on (a container's share, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def bounded_workers(workers: int, cpus: int, where: str) -> int:
    """`workers`, or `cpus` when there are fewer, said: each worker takes one CPU, so more would
    wait for a CPU (on a cluster: forever) or, on a local Ray told it has them, thrash."""
    if workers > cpus:
        log.warning("workers=%d, but %s has %d CPUs: running %d Ray workers", workers, where,
                    cpus, cpus)
        return cpus
    return workers


def start_ray(address: str | None, workers: int) -> None:
    """Join the cluster at `address`, or start Ray on this machine with `workers` CPUs."""
    if address and "RAY_AUTH_MODE" not in os.environ and TOKEN.exists():
        # `ray start` turns token authentication on when this file exists; do as it does
        # (before Ray is imported: it reads the mode then)
        os.environ["RAY_AUTH_MODE"] = "token"
    import ray

    env = {"env_vars": {"PYTHONPATH": os.pathsep.join(filter(None, [
        str(REPO), os.environ.get("PYTHONPATH")])), "OMP_NUM_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": os.environ.get(
            "HF_HUB_OFFLINE", "1")}}
    if ray.is_initialized():
        return
    try:
        if address:
            ray.init(address=address, runtime_env=env, log_to_driver=False,
                     logging_level="ERROR")
        else:
            ray.init(num_cpus=workers, runtime_env=env, include_dashboard=False,
                     log_to_driver=False, logging_level="ERROR")
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise IndexerError(f"cannot reach a Ray cluster at {address!r} ({str(exc)[:160]}): "
                           "start one with `ray start --head` and pass the address it prints, "
                           "or leave out --ray-address to run Ray on this machine") from exc


def probe(address: str) -> None:
    """Fail fast on a `host:port` nobody listens on (ray.init would retry for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or "://" in address or not port.isdigit():
        return  # `auto`, `ray://...`: left to Ray
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise IndexerError(f"cannot reach a Ray cluster at {address!r} ({exc.strerror or exc}): "
                           "start one with `ray start --head` and pass the address it prints, "
                           "or leave out --ray-address to run Ray on this machine") from exc
