"""Publish a whole index into a folder: FAISS, SQLite and BM25 made in a staging folder, then
published as the folder's next version (`store.publish`). What a build made and what a
migration copied publish the same way."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import numpy as np

from common.bm25_segments import SegmentedLexical
from common.lexical import Bm25Params

from ..build_progress import BuildProgress
from ..documents import Document
from ..errors import ConcurrentWriteError
from ..presets import Spec, add_rows, create
from ..stored import ChunkRow
from ..vector_rows import VectorRows, as_rows
from . import db, field_kinds, store
from .columns import Columns
from .index import FolderIndex


def publish_folder(out: Path, base: str | None, docs: Sequence[Document],
                   chunks: Sequence[ChunkRow], vectors, spec: Spec, fields: dict,
                   bm25: Bm25Params, progress: Callable[[BuildProgress], None],
                   build: dict, encoder=None) -> FolderIndex:
    """`docs` with their chunk rows (chunk ids are their positions; a list of them is emptied
    once they are stored) and `vectors` (rows, an array, or the Ray build's `ShardedVectors`)
    published as the next version of `out`, which must still be at `base`. `fields` are the
    manifest's own (encoder, chunking, source, ...); `build` (engine, workers, seconds per
    stage) goes into it with the seconds this takes."""
    clock = time.perf_counter()
    progress(BuildProgress("index", 0, len(chunks)))
    ids = np.arange(len(chunks), dtype=np.int64)
    sharded = hasattr(vectors, "add_on_ray")  # the Ray build's indexer.ray.ShardedVectors
    if sharded and spec.preset == "ivfpq-disk":
        # the Ray build: trained on a sample, shards added by the workers, merged on disk
        vectors.add_on_ray(spec, lambda done, total: progress(BuildProgress("index", done, total)))
        write_vectors = vectors.merge
    else:
        index = create(spec, fields["dim"])
        add_rows(index, VectorRows([vectors.array()]) if sharded else as_rows(vectors), ids,
                 lambda done: progress(BuildProgress("index", done, len(chunks))))
        write_vectors = partial(store.write_vectors, index)
        del index  # written to the staging folder below, then let go: BM25 is built meanwhile
    progress(BuildProgress("index", len(chunks), len(chunks)))
    stages = build["stages"]
    stages["index_s"] = time.perf_counter() - clock
    clock = time.perf_counter()

    progress(BuildProgress("save", 0, 1))
    staging = store.Staging(out)
    try:
        write_vectors(staging.file("faiss"))
        del write_vectors  # at 1M chunks an HNSW index is 1.8 GB: read back once all is written
        conn = db.open_writable(staging.file("sqlite"))
        with db.transaction(conn):
            db.insert_documents(conn, docs)
            db.insert_chunks(conn, ((i, *c) for i, c in enumerate(chunks)))
            db.set_next_chunk_id(conn, len(chunks))
        if isinstance(chunks, list):
            chunks.clear()  # the rows' tokens are in SQLite now: BM25 streams them from there
        SegmentedLexical.from_rows(db.iter_lexical_rows(conn), bm25).save(staging.file("bm25"))
        fields = {**fields, "preset": spec.preset, "faiss_spec": spec.factory,
                  "knobs": spec.knobs, "bm25": bm25.to_dict(), "counts": db.counts(conn),
                  **_field_kinds(conn)}
        Columns.build(conn, fields["metadata_fields"]).save(staging.file("fields"))
        conn.close()
        stages["write_s"] = time.perf_counter() - clock
        if sharded:
            stages.update(vectors.stages)
        fields["build"] = {**build, "stages": {k: round(v, 3) for k, v in stages.items()}}
        manifest, token = store.publish(out, staging, fields, base)
    except store.StaleBase as exc:
        staging.discard()
        raise ConcurrentWriteError(
            f"{out} changed while this build ran (another writer published); run the build "
            "again: it reuses the vectors already encoded") from exc
    except BaseException:
        staging.discard()
        raise
    # what was just written, read back as any reader reads it (checksums were just made)
    return FolderIndex.open_folder(out, encoder=encoder, verify=False)


def _field_kinds(conn) -> dict:
    """The manifest's field kinds and the counts a writer keeps them by (one scan)."""
    counts = field_kinds.kind_counts(conn)
    return {"metadata_fields": field_kinds.kinds_of(counts),
            "metadata_kind_counts": field_kinds.counts_to_json(counts)}
