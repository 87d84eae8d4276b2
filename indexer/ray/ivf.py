"""The Ray build's vectors, kept in the workers' shard files. For `ivfpq-disk` the driver trains
the IVF/PQ quantiser once on a seeded sample of them (read from the mapped files), Ray tasks add
each shard to a copy of the trained index and write an IVF shard file, and the lists of all IVF
shards are merged on disk into the staged version (`DiskIVFPQ.merge`, i.e.
`faiss.contrib.ondisk.merge_ondisk`), as faiss's demo_ondisk_ivf.py does: the driver never holds
every vector. Trained index and IVF shards, like the vector shards, are files a re-run skips.
Other presets assemble all vectors on the driver (`array`) and build as the local build does.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import faiss
import numpy as np

from common import write_atomic
from common.npy import load_npy

from ..diskivf import DiskIVFPQ
from ..errors import IndexerError
from ..presets import Spec, create, train, train_sample_size

SEED = 0


@dataclass
class ShardedVectors:
    """Vector shards `paths` (`.npy`, chunk ids 0, 1, ... in shard order) in `work`; Ray is
    joined at `address` (or started here with `workers` CPUs) when shards must be added."""

    work: Path
    paths: list[Path]
    dim: int
    address: str | None = None
    workers: int = 1
    stages: dict[str, float] = field(default_factory=dict)  # seconds of train, add, merge
    trained: Path | None = field(default=None, init=False)  # what add_on_ray wrote, merge reads
    ivf_shards: list[Path] = field(default_factory=list, init=False)

    def parts(self) -> list[np.ndarray]:
        """Each shard's vectors, mapped (nothing read yet)."""
        return [load_npy(p) for p in self.paths]

    def array(self) -> np.ndarray:
        """All vectors in one array, in RAM (flat, hnsw, ivf, ivfpq, sq8)."""
        parts = self.parts()
        if not parts:
            return np.empty((0, self.dim), np.float32)
        return np.vstack(parts).astype(np.float32, copy=False)

    def add_on_ray(self, spec: Spec, progress: Callable[[int, int], None]) -> None:
        """`ivfpq-disk`: train once on a sample, then add every shard on a Ray worker, each
        into its own IVF shard file; `progress(vectors added, total)` as shards finish."""
        from .cluster import start_ray

        key = hashlib.blake2b(f"{spec.factory}|{SEED}".encode(), digest_size=6).hexdigest()
        self.trained = self.work / f"trained-{key}.faiss"
        self.ivf_shards = [self.work / f"ivf-{key}-{i:06d}.faiss" for i in range(len(self.paths))]
        clock = time.perf_counter()
        if not self.trained.exists():
            index = create(spec, self.dim)
            train(index, sample(self.parts(), train_sample_size(index.nlist), SEED), SEED)
            with write_atomic(self.trained) as fh:
                faiss.write_index(index.ivf, faiss.PyCallbackIOWriter(fh.write))
        self.stages["train_s"] = time.perf_counter() - clock
        clock = time.perf_counter()
        counts = [len(p) for p in self.parts()]
        firsts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int).tolist()
        pending = [i for i, out in enumerate(self.ivf_shards) if not out.exists()]
        total, done = sum(counts), sum(counts) - sum(counts[i] for i in pending)
        progress(done, total)
        if pending:
            import ray

            start_ray(self.address, self.workers)
            task = ray.remote(num_cpus=1, max_retries=0)(add_shard)
            running = {task.remote(str(self.trained), str(self.paths[i]), firsts[i],
                                   str(self.ivf_shards[i])): i for i in pending}
            try:
                while running:
                    finished, _ = ray.wait(list(running), num_returns=1)
                    done += ray.get(finished[0])
                    del running[finished[0]]
                    progress(done, total)
            except Exception as exc:
                raise IndexerError(f"a Ray worker failed adding vectors ({type(exc).__name__}: "
                                   f"{str(exc).splitlines()[0][:200] if str(exc) else ''}); the "
                                   "shards finished so far are kept: run the same build again to "
                                   "go on") from exc
            finally:
                for ref in running:  # interrupted: no task writes on behind the driver's back
                    ray.cancel(ref)
        self.stages["add_s"] = time.perf_counter() - clock

    def merge(self, folder: Path) -> DiskIVFPQ:
        """Write the vectors folder of the version from the IVF shards `add_on_ray` made."""
        parts: dict[str, float] = {}
        index = DiskIVFPQ.merge(self.trained, self.ivf_shards, self.parts(), folder, parts)
        self.stages.update(merge_lists_s=parts["lists_s"], merge_rows_s=parts["rows_s"])
        return index


def add_shard(trained: str, vectors: str, first_id: int, out: str) -> int:
    """On a worker: the trained (empty) index with one shard's vectors added under chunk ids
    `first_id`, ..., written atomically to `out`. Returns the vectors added."""
    index = faiss.read_index(trained)
    x = np.load(vectors, allow_pickle=False)
    index.add_with_ids(x, np.arange(first_id, first_id + len(x), dtype=np.int64))
    with write_atomic(out) as fh:
        faiss.write_index(index, faiss.PyCallbackIOWriter(fh.write))
    return len(x)


def sample(parts: list[np.ndarray], size: int, seed: int) -> np.ndarray:
    """`size` rows drawn without replacement (seeded, in order) from the rows of `parts`; all
    rows when there are no more than `size` (then training sees what the local build's does)."""
    counts = np.array([len(p) for p in parts])
    n = int(counts.sum())
    if n <= size:
        return np.vstack(parts).astype(np.float32, copy=False)
    rows = np.sort(np.random.default_rng(seed).choice(n, size, replace=False))
    starts = np.concatenate([[0], np.cumsum(counts)])
    out = [np.asarray(part[rows[(rows >= lo) & (rows < hi)] - lo], dtype=np.float32)
           for part, lo, hi in zip(parts, starts[:-1], starts[1:], strict=True)]
    return np.vstack(out)
