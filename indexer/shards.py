"""Resumable encoding for the local build: chunks are embedded shard by shard into a private
folder keyed by the encoder, backend, settings and chunks, so a build killed mid-way and run
again reuses the shards already written (and never mixes in another backend's vectors)."""

from __future__ import annotations

import bisect
import hashlib
import time
from functools import partial
from pathlib import Path

import numpy as np

from common import write_atomic

from .build_progress import BuildProgress
from .chunking import Chunk
from .embedding import embed_passages
from .errors import ConcurrentWriteError
from .folder import store
from .vector_rows import VectorRows

SHARD_SIZE = 1024  # chunks per resumable embedding shard


def shards_folder(out: Path, key: str) -> store.Private:
    """The private folder of the shards named `key` under the index folder `out`."""
    try:
        return store.Private(out / f"{store.BUILD}{key}")
    except ConcurrentWriteError as exc:
        raise ConcurrentWriteError(f"another build of the same corpus into {out} is running; "
                                   "wait for it to finish") from exc


def shards_key(enc, chunks: list[Chunk], shard_size: int, batch_size: int) -> str:
    """Names the shard folder: the same encoder, backend, settings and chunks find the same
    shards (vectors of another backend are never mixed in)."""
    key = hashlib.blake2b(digest_size=10)
    key.update(f"{encoder_key(enc)}|{shard_size}|{batch_size}".encode())
    for c in chunks:
        key.update(c.encoded.encode() + b"\x00")
    return key.hexdigest()


def encoder_key(enc) -> str:
    """The weights and the backend (torch's key is the one from before backends existed)."""
    return enc.fingerprint if enc.backend == "torch" else f"{enc.fingerprint}|{enc.backend}"


def encode_resumable(enc, docs, chunks: list[Chunk], work: Path, batch_size: int,
                     shard_size: int, report_progress) -> VectorRows:
    """Embed every chunk, shard by shard; finished shards are files a re-run reuses. Returns
    the shards as rows read from disk when used (never all of them in RAM at once)."""
    # documents finished once their last chunk is embedded
    pos = {d.id: i for i, d in enumerate(docs)}
    last_chunk = np.cumsum(np.bincount([pos[c.doc_id] for c in chunks], minlength=len(docs))) - 1
    files, start = [], time.perf_counter()
    resumed_docs = resumed_chunks = 0

    def docs_done(chunks_done: int) -> int:
        return bisect.bisect_right(last_chunk, chunks_done - 1)

    def report(chunks_done: int) -> None:
        done = docs_done(chunks_done)
        elapsed = time.perf_counter() - start
        rate = (done - resumed_docs) / elapsed if elapsed > 0 else 0.0
        chunk_rate = (chunks_done - resumed_chunks) / elapsed if elapsed > 0 else 0.0
        left = len(chunks) - chunks_done
        report_progress(BuildProgress("encode", done, len(docs), rate,
                                      left / chunk_rate if chunk_rate > 0 else None,
                                      resumed_docs, chunks_done, len(chunks)))

    for first in range(0, len(chunks), shard_size):
        shard = work / f"shard-{first // shard_size:06d}.npy"
        end = min(first + shard_size, len(chunks))
        files.append(shard)
        if shard.exists():
            resumed_docs += docs_done(end) - docs_done(first)
            resumed_chunks += end - first
            report(end)
            continue
        texts = [c.encoded for c in chunks[first:end]]
        # a report every few batches, not only once per shard (documents done are pro-rated);
        # the shard's last piece is reported below, once it is saved
        vecs = embed_passages(enc, texts, batch_size, partial(_within, report, first, len(texts)))
        with write_atomic(shard) as fh:
            np.save(fh, np.asarray(vecs, dtype=np.float32), allow_pickle=False)
        report(end)
    return VectorRows.of_files(files)


def _within(report, first: int, size: int, n: int) -> None:
    if n < size:
        report(first + n)
