"""Encoding on Ray (`--engine ray`): the corpus is read and checked on the driver exactly as the
local build reads it; shards of documents go through Ray Data, where an actor pool (each actor
loads the encoder once, on the driver encoder's backend) chunks and embeds them and writes each
shard's vectors and chunk rows as files; the driver then assembles the chunk rows in document
order and publishes through the same code as the local build, so the result is an ordinary
index; the vectors stay in the shard files (`indexer.ray.ivf`: `ivfpq-disk` is trained, added
and merged from them, other presets load them). Finished shards are files a re-run skips.

On a cluster (`address`), the index folder must be a path every node sees (a shared filesystem)
and every node needs this repository and its requirements at the same path.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import time
from pathlib import Path

import numpy as np

from common import write_atomic

from ..chunking import Chunk, ChunkingConfig, chunk_documents
from ..documents import Document
from ..errors import IndexerError
from .cluster import bounded_workers, start_ray
from .ivf import ShardedVectors

log = logging.getLogger(__name__)

DOCS_PER_SHARD = 256


class ShardWorker:
    """A Ray Data actor: loads the encoder once (on the driver's backend), then chunks, embeds
    and writes whole shards."""

    def __init__(self, model: str, chunking: dict, batch_size: int, work: str, *,
                 backend: str, sink=None) -> None:
        import torch

        from encoder import load_encoder

        torch.set_num_threads(1)  # one CPU per actor
        self.enc = load_encoder(model, backend=backend)
        if self.enc.backend != backend:  # its vectors would not be the driver's backend's
            why = self.enc.backend_note or f"it fell back to {self.enc.backend}"
            raise IndexerError(f"a Ray worker on {socket.gethostname()} could not run {model!r} "
                               f"on {backend!r} ({why}); build with --backend torch, or install "
                               "that backend's packages on every node")
        self.chunking = ChunkingConfig(**chunking)
        self.batch_size = batch_size
        self.work = Path(work)
        self.sink = sink  # an indexer.milvus.ChunkSink: this worker writes its rows into Milvus
        self.client = sink.client() if sink is not None else None

    def __call__(self, batch: dict) -> dict:
        out = {"shard": [], "chunks": [], "chunk_s": [], "embed_s": [], "insert_s": [],
               "inserted": [], "pid": []}
        for shard, docs_json in zip(batch["shard"], batch["docs"], strict=True):
            docs = [Document(**d) for d in json.loads(docs_json)]
            start = time.perf_counter()
            chunks = chunk_documents(self.enc, docs, self.chunking)
            chunked = time.perf_counter()
            vecs = embed(self.enc, [c.encoded for c in chunks], self.batch_size)
            write_shard(self.work, int(shard), chunks, vecs)
            embedded = time.perf_counter()
            inserted = self.sink.write(self.client, docs, chunks, vecs) if self.sink else 0
            out["insert_s"].append(time.perf_counter() - embedded)
            out["inserted"].append(inserted)
            out["pid"].append(os.getpid())
            out["shard"].append(int(shard))
            out["chunks"].append(len(chunks))
            out["chunk_s"].append(chunked - start)
            out["embed_s"].append(embedded - chunked)
        return {k: np.asarray(v) for k, v in out.items()}


def embed(enc, texts: list[str], batch_size: int) -> np.ndarray:
    """Passage vectors, longest texts batched together (as the local build does)."""
    order = np.argsort([-len(t) for t in texts], kind="stable")
    vecs = np.empty((len(texts), enc.dim), dtype=np.float32)
    for at in range(0, len(texts), batch_size * 4):
        rows = order[at : at + batch_size * 4]
        vecs[rows] = enc.encode([texts[i] for i in rows], prompt="passage",
                                batch_size=batch_size)
    return vecs


def shard_paths(work: Path, shard: int) -> tuple[Path, Path]:
    return work / f"shard-{shard:06d}.npy", work / f"shard-{shard:06d}.chunks.json"


def write_shard(work: Path, shard: int, chunks: list[Chunk], vecs: np.ndarray) -> None:
    """Chunk rows first, vectors last: a shard counts as finished once its .npy exists."""
    vec_path, rows_path = shard_paths(work, shard)
    rows = [[c.doc_id, c.chunk_no, c.start, c.end, c.text, c.encoded] for c in chunks]
    with write_atomic(rows_path) as fh:
        fh.write(json.dumps(rows, ensure_ascii=False).encode("utf-8"))
    with write_atomic(vec_path) as fh:
        np.save(fh, vecs, allow_pickle=False)


def read_rows(work: Path, shard: int) -> list[Chunk]:
    rows = json.loads(shard_paths(work, shard)[1].read_text(encoding="utf-8"))
    return [Chunk(*r) for r in rows]


def shards_key(fingerprint: str, docs: list[Document], chunking: ChunkingConfig,
               per_shard: int) -> str:
    """Names the shard folder: the same encoder, settings and documents find the same shards."""
    key = hashlib.blake2b(digest_size=10)
    key.update(f"ray|{fingerprint}|{per_shard}|{json.dumps(chunking.to_dict())}".encode())
    for d in docs:
        key.update(json.dumps([d.id, d.title, d.text], ensure_ascii=False).encode() + b"\0")
    return key.hexdigest()


def shard_items(docs, pending, per_shard: int) -> list[dict]:
    """What each pending shard's worker gets: its documents' four fields as JSON (a file's
    document's notes stay with the driver; `ShardWorker` makes `Document`s of them)."""
    return [{"shard": s, "docs": json.dumps(
        [{"id": d.id, "text": d.text, "title": d.title, "metadata": d.metadata}
         for d in docs[s * per_shard : (s + 1) * per_shard]], ensure_ascii=False)}
        for s in pending]


def run_shards(model: str, docs: list[Document], pending: list[int], per_shard: int,
               chunking: ChunkingConfig, batch_size: int, work: Path, workers: int,
               on_shard, *, backend: str, staging=None) -> dict:
    """Chunk + embed the `pending` shards on Ray; `on_shard(shard, chunks)` as each finishes.
    With a `staging` (`indexer.milvus.Staging`) whose sink is set, each worker also writes its
    shards' chunk rows into it. Returns summed per-stage worker seconds."""
    import ray.data

    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False  # the build reports its own progress
    ctx.print_on_execution_start = False
    items = shard_items(docs, pending, per_shard)
    ds = ray.data.from_items(items, override_num_blocks=max(1, len(items)))
    ds = ds.map_batches(ShardWorker, batch_size=1, num_cpus=1,
                        compute=ray.data.ActorPoolStrategy(size=min(workers, len(items))),
                        fn_constructor_kwargs={"model": model, "chunking": chunking.to_dict(),
                                               "batch_size": batch_size, "work": str(work),
                                               "backend": backend,
                                               "sink": getattr(staging, "sink", None)})
    totals = {"chunk_s": 0.0, "embed_s": 0.0}
    try:
        for row in ds.iter_rows():
            totals["chunk_s"] += float(row["chunk_s"])
            totals["embed_s"] += float(row["embed_s"])
            if staging is not None and staging.sink is not None:
                staging.record(int(row["pid"]), int(row["inserted"]), float(row["insert_s"]))
            on_shard(int(row["shard"]), int(row["chunks"]))
    except Exception as exc:
        raise IndexerError(f"a Ray worker failed ({type(exc).__name__}: "
                           f"{str(exc).splitlines()[0][:200] if str(exc) else ''}); the shards "
                           "finished so far are kept: run the same build again to go on") from exc
    return totals


def encode_on_ray(enc, docs: list[Document], chunking: ChunkingConfig, batch_size: int,
                  work: Path, workers: int, address: str | None, report_progress,
                  per_shard: int, staging=None) -> tuple[list[Chunk], ShardedVectors, dict]:
    """Chunks (document order) and their vectors, made by Ray workers shard by shard into
    `work`; shards already there are reused. Returns (chunks, the vector shards, stage
    seconds); the vectors stay in their files (see `indexer.ray.ivf`). With a `staging` that
    has a sink (a build into Milvus), the workers write each shard's chunk rows into it, and
    the driver writes those of the shards reused."""
    from ..build_progress import BuildProgress

    n_shards = (len(docs) + per_shard - 1) // per_shard
    done = {s for s in range(n_shards) if shard_paths(work, s)[0].exists()}
    pending = [s for s in range(n_shards) if s not in done]
    resumed = sum(len(docs[s * per_shard : (s + 1) * per_shard]) for s in done)
    finished, start = [resumed], time.perf_counter()
    stages: dict[str, float] = {}

    def on_shard(shard: int, _chunks: int) -> None:
        finished[0] += len(docs[shard * per_shard : (shard + 1) * per_shard])
        rate = (finished[0] - resumed) / max(time.perf_counter() - start, 1e-9)
        left = len(docs) - finished[0]
        report_progress(BuildProgress("encode", finished[0], len(docs), rate,
                                      left / rate if rate > 0 else None, resumed))

    report_progress(BuildProgress("encode", resumed, len(docs), resumed=resumed))
    if staging is not None and staging.sink is not None:
        for s in sorted(done):  # encoded by an earlier run: their rows are not in this staging
            staging.write_here(docs[s * per_shard : (s + 1) * per_shard], read_rows(work, s),
                               np.load(shard_paths(work, s)[0]))
    if pending:
        t = time.perf_counter()
        start_ray(address, workers)
        stages["ray_start_s"] = time.perf_counter() - t
        # a cluster joined, or a Ray this process started before with fewer CPUs: actors
        # beyond its CPUs would wait for one forever
        import ray

        cpus = int(ray.cluster_resources().get("CPU", 0)) or workers
        workers = bounded_workers(workers, cpus, f"the Ray cluster at {address}" if address
                                  else "the Ray already running in this process")
        model = enc.name if _bundled(enc.name) else str(enc.path)
        t = time.perf_counter()
        stages.update(run_shards(model, docs, pending, per_shard, chunking, batch_size, work,
                                 workers, on_shard, backend=enc.backend, staging=staging))
        stages["shards_s"] = time.perf_counter() - t
    t = time.perf_counter()
    chunks = []
    for s in range(n_shards):
        chunks += read_rows(work, s)
    stages["assemble_s"] = time.perf_counter() - t
    vectors = ShardedVectors(work, [shard_paths(work, s)[0] for s in range(n_shards)], enc.dim,
                             address, min(workers, n_shards))  # the workers a shard each ran
    return chunks, vectors, {k: round(v, 3) for k, v in stages.items()}


def _bundled(name: str) -> bool:
    from encoder import bundled_names

    return name in bundled_names()
