"""Build an index from a corpus: check the target → read → chunk → encode (resumable shards) →
publish through the target's store (a folder: FAISS + SQLite + BM25, `indexer.folder.publish`;
Milvus: rows, `indexer.milvus.build`). A build killed at any moment leaves the previous index as
it was; a re-run reuses the shards already encoded and ends with the same content."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from common.lexical import Bm25Params

from .build_progress import BuildProgress
from .chunking import (
    ChunkingConfig,
    chunk_documents,
    chunks_from_spans,
    too_long,
    whole_document_chunks,
)
from .corpus import CorpusOptions, CorpusReport, read_corpus
from .disk_full import disk_full_said
from .documents import Document
from .errors import CorpusError
from .given_vectors import check_vectors
from .index import SemanticIndex
from .index_encoder import check_backend_arg
from .location import Built
from .shards import SHARD_SIZE, encode_resumable, encoder_key, shards_folder, shards_key
from .stores import locate
from .validation import (
    check_build_args,
    check_corpus_names,
    check_document_list,
    check_field_kinds,
    check_positive_int,
    coerce_document,
)
from .vector_rows import VectorRows

ENGINES = ("local", "ray")
log = logging.getLogger("bertscope.indexer")


def build_index(
    corpus: str | Path | Sequence[Document | dict] | CorpusReport,
    out: str | Path,
    *,
    model="minilm",
    preset: str = "auto",
    corpus_options: CorpusOptions | None = None,
    chunking: ChunkingConfig | None = None,
    batch_size: int = 32,
    shard_size: int = SHARD_SIZE,
    progress: Callable[[BuildProgress], None] | None = None,
    source: str | None = None,
    engine: str = "local",
    workers: int = 1,
    ray_address: str | None = None,
    backend: str = "auto",
    bm25: Bm25Params | None = None,
    spans: Mapping[str, list[tuple[int, int]]] | None = None,
    vectors: np.ndarray | None = None,
) -> SemanticIndex:
    """Build (or rebuild) the index at `out` and publish it; returns it opened.

    `corpus` is a path any reader takes (see `read_corpus`), a list of documents or a
    `CorpusReport` already read (its skipped rows go into the manifest as they are); `model` an
    `Encoder` or a name / folder for `load_encoder`. Bad rows are skipped and listed in the
    manifest (`corpus_options.on_error="fail"` raises instead). `source` describes the corpus
    in the manifest (default: its path). `engine="ray"` chunks and embeds on Ray (`workers`
    actors; `ray_address`: join that cluster, else Ray runs on this machine), see `indexer.ray`.
    `backend` runs a `model` given by name: `auto` (the fastest whose fidelity passed the gate)
    or a name of `encoder.BACKENDS`; the manifest records the one that ran, and its fidelity.
    `bm25`: the lexical side's k1 and b (default `Bm25Params()`), kept in the manifest so that
    every later version scores with them. `spans` ({doc_id: [(start, end), ...]}, the local
    engine only) chunks every document at those character spans instead (a re-index keeping
    its source's chunking). `vectors` (N documents x the model's dimension, float32; a mapped
    `.npy` stays mapped) brings vectors made elsewhere: row i is document i in corpus order,
    each document is one chunk, nothing is encoded and `model` only encodes queries
    (`indexer.given_vectors` says what is refused, all before anything is written).
    `out` is a folder or a `milvus://` address (`indexer.locate`): the same reading, chunking
    and encoding (either engine), then the store publishes it.
    """
    from encoder import AUTO, Encoder, load_encoder

    if engine not in ENGINES:
        raise ValueError(f"Invalid build engine {engine!r}. Valid: {', '.join(ENGINES)}")
    if spans is not None and engine != "local":
        raise ValueError("spans (kept chunking) are built by the local engine only")
    if vectors is not None and (engine != "local" or spans is not None):
        raise ValueError("vectors (made elsewhere) are built by the local engine, one chunk per "
                         "document: leave engine and spans out")
    clock = time.perf_counter()
    target = locate(out, role="out").build_target(preset)  # before anything is read or encoded
    check_build_args(preset, batch_size, shard_size, progress)
    backend = check_backend_arg(backend, none_ok=False)
    workers = _check_engine(engine, workers, ray_address)
    report_progress = progress or (lambda p: None)
    chunking = chunking or ChunkingConfig()
    if not isinstance(chunking, ChunkingConfig):
        raise TypeError(f"chunking must be a ChunkingConfig, got {type(chunking).__name__}")
    bm25 = Bm25Params() if bm25 is None else bm25
    if not isinstance(bm25, Bm25Params):
        raise TypeError(f"bm25 must be a Bm25Params, got {type(bm25).__name__}")
    report_progress(BuildProgress("read", 0, 1))
    files = [1]  # what reading counts: 1 (a corpus file), or a folder's files

    def file_read(n: int, total: int) -> None:
        files[0] = total
        report_progress(BuildProgress("read", n, total))

    # before the model: bad input fails fast; a folder's files counted as they are read
    report, read_from = _read(corpus, corpus_options, file_read)
    source = source or read_from
    if not report.documents:
        raise report.unusable(source)
    report_progress(BuildProgress("read", files[0], files[0]))
    stages = {"read_s": time.perf_counter() - clock}
    if not isinstance(model, Encoder):
        report_progress(BuildProgress("load", 0, 0))  # a first use exports the model: minutes
        enc = load_encoder(model, backend=backend)  # may fall back to torch, saying why
    elif backend not in (AUTO, model.backend):
        raise ValueError(f"backend={backend!r}, but the encoder given runs on {model.backend!r}: "
                         f"pass the model by name, or load it with backend={backend!r}")
    else:
        enc = model
    docs = report.documents
    given = None if vectors is None else check_vectors(
        vectors, len(docs), enc.dim, enc.name, skipped=len(report.skipped),
        duplicates=report.duplicates)
    work_root = target.work
    staging = None  # where Ray's workers write their rows, if the store takes them so
    build_notes: dict = {}
    if engine == "ray":
        from .ray import encode as raybuild

        key = raybuild.shards_key(encoder_key(enc), docs, chunking, raybuild.DOCS_PER_SHARD)
        work = shards_folder(work_root, f"ray-{key}")
        staging = target.ray_staging(enc.dim, bm25.to_dict(), ray_address, work.path, docs)

        def encode():
            return raybuild.encode_on_ray(enc, docs, chunking, batch_size, work.path, workers,
                                          ray_address, report_progress,
                                          raybuild.DOCS_PER_SHARD, staging)
    elif given is not None:
        report_progress(BuildProgress("chunk", 0, len(docs)))
        chunks = whole_document_chunks(enc, docs, chunking)
        report_progress(BuildProgress("chunk", len(docs), len(docs)))
        work = shards_folder(work_root, "given")
        build_notes = {"vectors": "given: one chunk per document, encoded elsewhere"}

        def encode():
            return chunks, VectorRows([given], normalize=True), {}
    else:
        clock = time.perf_counter()
        report_progress(BuildProgress("chunk", 0, len(docs)))
        if spans is None:
            chunks = chunk_documents(enc, docs, chunking)
        else:
            chunks = chunks_from_spans(enc, docs, spans, chunking)
            build_notes = _kept_chunking(enc, chunks)
        report_progress(BuildProgress("chunk", len(docs), len(docs)))
        stages["chunk_s"] = time.perf_counter() - clock
        work = shards_folder(work_root, shards_key(enc, chunks, shard_size, batch_size))

        def encode():
            return chunks, encode_resumable(enc, docs, chunks, work.path, batch_size,
                                             shard_size, report_progress), {}
    try:
        with disk_full_said(work_root, "the build", "the index there is as it was before it "
                            "(the vectors encoded so far are kept: the same build goes on from "
                            "them)"):
            clock = time.perf_counter()
            chunks, vectors, ray_stages = encode()
            stages.update(ray_stages, encode_s=time.perf_counter() - clock)
            build = {"engine": engine, "workers": vectors.workers if engine == "ray" else 1,
                     "stages": stages, **build_notes}
            index = target.publish(Built(enc, docs, chunks, vectors, preset, chunking, bm25,
                                         report, source, build, staging), report_progress)
    except BaseException:
        if staging is not None:
            with contextlib.suppress(Exception):  # the store may be what failed
                staging.drop()
        if any(work.path.glob("shard-*.npy")):
            work.release()  # kept for a re-run until a build publishes
        else:
            work.discard()
            target.abandoned()  # nothing of this build to keep
        raise
    work.release()
    target.finished()
    report_progress(BuildProgress("done", len(docs), len(docs)))
    return index


def _kept_chunking(enc, chunks) -> dict:
    """The manifest's note on a build at kept spans: and how many chunks the model reads only
    the start of (said in the log too)."""
    over = too_long(enc, chunks)
    if over:
        log.warning("%d of %d kept chunks are longer than %s reads (%d tokens): dense search "
                    "sees their start only; re-chunk with --chunk-tokens %d to encode them whole",
                    over, len(chunks), enc.name, enc.max_length, enc.max_length)
    return {"chunking": "kept from the source index", "chunks_truncated": over}


def _check_engine(engine: str, workers: int, ray_address: str | None) -> int:
    """The Ray workers to ask for; Ray settings given to the local engine are errors, not
    ignored, and more workers than this machine's CPUs run as many as there are CPUs."""
    if engine != "ray":
        for name, value, default in (("workers", workers, 1), ("ray_address", ray_address, None)):
            if value != default:
                raise ValueError(f"{name}={value!r} applies only to engine='ray': pass "
                                 f"engine='ray', or leave {name} out")
        return 1
    from .ray import cluster

    check_positive_int(workers, "workers")
    if ray_address:
        cluster.probe(ray_address)  # an unreachable cluster fails before the corpus is read
        return workers  # bounded by the cluster's CPUs once joined
    return cluster.bounded_workers(workers, cluster.local_cpus(), "this machine")


def _read(corpus, options: CorpusOptions | None, progress=None) -> tuple[CorpusReport, str]:
    if isinstance(corpus, (str, Path)):
        report = read_corpus(corpus, options, progress=progress)
        check_corpus_names(report.documents, str(corpus))
        return report, str(corpus)
    if isinstance(corpus, CorpusReport):  # read before (a rebuild: an index's own documents)
        return corpus, "<documents>"
    docs = {}
    report = CorpusReport(documents=[], error=CorpusError)
    if not check_document_list(corpus, "corpus (a path or a list)"):
        raise CorpusError("corpus is an empty list: give at least one document")
    for i, item in enumerate(corpus):
        doc = coerce_document(item, f"corpus[{i}]")
        if doc.id in docs:
            report.duplicates += 1
            del docs[doc.id]
        docs[doc.id] = doc
    report.documents, report.rows = list(docs.values()), len(corpus)
    check_field_kinds(report.documents, {})  # a field holds one kind from the start
    return report, "<documents>"
