"""Build an index from a corpus: check the folder → read → chunk → encode (resumable shards) →
FAISS + SQLite + BM25 → publish through the store. A build killed at any moment leaves the
previous index as it was; a re-run reuses the shards already encoded and ends with the same
content."""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import numpy as np

from common import check_path
from common.lexical import Bm25Params, LexicalIndex, tokenize

from . import db, store
from .build_progress import BuildProgress
from .chunking import ChunkingConfig, chunk_documents
from .corpus import CorpusOptions, CorpusReport, read_corpus
from .disk_full import disk_full_said
from .documents import Document
from .errors import ConcurrentWriteError, CorpusError
from .index import SemanticIndex
from .index_encoder import check_backend_arg, encoder_fields
from .presets import create, spec_for, train_and_add
from .shards import SHARD_SIZE, encode_resumable, encoder_key, shards_folder, shards_key
from .validation import (
    check_build_args,
    check_document_list,
    check_positive_int,
    coerce_document,
)

ENGINES = ("local", "ray")


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
    every later version scores with them.
    `out` may be a `milvus://` address (`indexer.milvus`): the same reading, chunking and
    encoding (either engine), the shards in a work folder under `$BERTSCOPE_HOME`, then the rows
    written into Milvus; returns a `MilvusIndex`.
    """
    from encoder import AUTO, Encoder, load_encoder

    if engine not in ENGINES:
        raise ValueError(f"Invalid build engine {engine!r}. Valid: {', '.join(ENGINES)}")
    clock = time.perf_counter()
    milvus = _milvus_target(out, preset)
    if milvus is None:
        out = check_path(out, "out", "a folder path for the index")
        base = store.check_target(out)  # before anything is read, encoded or written
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
    report, read_from = _read(corpus, corpus_options)  # before the model: bad input fails fast
    source = source or read_from
    if not report.documents:
        raise report.unusable(source)
    report_progress(BuildProgress("read", 1, 1))
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
    if milvus is not None:  # the shards go to a work folder; the rows, at the end, to Milvus
        from .milvus import work_folder

        out = work_folder(milvus)
        out.parent.mkdir(parents=True, exist_ok=True)
    new_folder = not out.exists()
    staging = None  # a build into Milvus on Ray: the staging collections, opened before encoding
    if engine == "ray":
        from .ray import encode as raybuild

        key = raybuild.shards_key(encoder_key(enc), docs, chunking, raybuild.DOCS_PER_SHARD)
        work = shards_folder(out, f"ray-{key}")
        if milvus is not None:  # opened now: the workers write their chunk rows into it
            from .milvus import ray_staging

            staging = ray_staging(milvus, enc.dim, bm25.to_dict(), ray_address, work.path)

        def encode():
            return raybuild.encode_on_ray(enc, docs, chunking, batch_size, work.path, workers,
                                          ray_address, report_progress,
                                          raybuild.DOCS_PER_SHARD, staging)
    else:
        clock = time.perf_counter()
        report_progress(BuildProgress("chunk", 0, len(docs)))
        chunks = chunk_documents(enc, docs, chunking)
        report_progress(BuildProgress("chunk", len(docs), len(docs)))
        stages["chunk_s"] = time.perf_counter() - clock
        work = shards_folder(out, shards_key(enc, chunks, shard_size, batch_size))

        def encode():
            return chunks, encode_resumable(enc, docs, chunks, work.path, batch_size,
                                             shard_size, report_progress), {}
    try:
        with disk_full_said(out, "the build", "the index there is as it was before it (the "
                            "vectors encoded so far are kept: the same build goes on from them)"):
            clock = time.perf_counter()
            chunks, vectors, ray_stages = encode()
            stages.update(ray_stages, encode_s=time.perf_counter() - clock)
            build = {"engine": engine, "workers": vectors.workers if engine == "ray" else 1,
                     "stages": stages}
            if milvus is None:
                built = publish_build(out, base, enc, docs, chunks, vectors, preset, chunking,
                                      bm25, report, source, report_progress, build)
            else:
                from .milvus import publish_milvus

                if staging is not None and staging.sink is not None:
                    vectors = None  # in Milvus already, written by the workers
                elif not isinstance(vectors, np.ndarray):
                    vectors = vectors.array()
                built = publish_milvus(milvus, enc, docs, chunks, vectors, preset, chunking,
                                       bm25, report, source, report_progress, build, staging)
    except BaseException:
        if staging is not None:
            with contextlib.suppress(Exception):  # Milvus may be what failed
                staging.drop()
        if any(work.path.glob("shard-*.npy")):
            work.release()  # kept for a re-run until a build publishes
        else:
            work.discard()
            if new_folder and not (out / store.MANIFEST).exists():
                shutil.rmtree(out, ignore_errors=True)  # nothing of this build is worth keeping
        raise
    work.release()
    store.remove_private(out, store.BUILD)
    if milvus is not None:
        shutil.rmtree(out, ignore_errors=True)  # the work folder: the index is in Milvus
    report_progress(BuildProgress("done", len(docs), len(docs)))
    return built


def _milvus_target(out, preset: str):
    """The `MilvusAddress` of a `milvus://` target, checked (its preset, and that Milvus
    answers) before the corpus is read; None for a folder."""
    from .milvus import connect, index_type, is_milvus, parse_address

    if not is_milvus(out):
        return None
    address = parse_address(out)
    index_type(preset, 0)
    connect(address, create=True).close()
    return address


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


def publish_build(out: Path, base: str | None, enc, docs, chunks, vectors, preset, chunking, bm25,
             report, source, report_progress, build: dict) -> SemanticIndex:
    """FAISS, SQLite and BM25 made in a staging folder and published as the next version;
    `build` (engine, workers, seconds per stage) goes into the manifest."""
    clock = time.perf_counter()
    report_progress(BuildProgress("index", 0, len(chunks)))
    spec = spec_for(preset, len(chunks), enc.dim)
    ids = np.arange(len(chunks), dtype=np.int64)
    sharded = not isinstance(vectors, np.ndarray)  # the Ray build's indexer.ray.ShardedVectors
    if sharded and spec.preset == "ivfpq-disk":
        # the Ray build: trained on a sample, shards added by the workers, merged on disk
        vectors.add_on_ray(spec, lambda done, total: report_progress(
            BuildProgress("index", done, total)))
        write_vectors = vectors.merge
    else:
        index = create(spec, enc.dim)
        train_and_add(index, vectors.array() if sharded else vectors, ids)
        write_vectors = partial(store.write_vectors, index)
    report_progress(BuildProgress("index", len(chunks), len(chunks)))
    build["stages"]["index_s"] = time.perf_counter() - clock
    clock = time.perf_counter()

    report_progress(BuildProgress("save", 0, 1))
    lex = [tokenize(c.encoded) for c in chunks]
    lexical = LexicalIndex.build(ids.tolist(), lex, bm25)
    staging = store.Staging(out)
    try:
        conn = db.open_writable(staging.file("sqlite"))
        with db.transaction(conn):
            db.insert_documents(conn, docs)
            db.insert_chunks(conn, ((i, c.doc_id, c.chunk_no, c.start, c.end, " ".join(t))
                                    for i, (c, t) in enumerate(zip(chunks, lex, strict=True))))
            db.set_next_chunk_id(conn, len(chunks))
        fields = _manifest(enc, spec, chunking, report, source)
        fields["bm25"] = bm25.to_dict()
        fields.update(counts=db.counts(conn), metadata_fields=db.field_types(conn))
        conn.close()
        index = write_vectors(staging.file("faiss"))
        lexical.save(staging.file("bm25"))
        build["stages"]["write_s"] = time.perf_counter() - clock
        if sharded:
            build["stages"].update(vectors.stages)
        fields["build"] = {**build, "stages": {k: round(v, 3) for k, v in
                                               build["stages"].items()}}
        manifest, token = store.publish(out, staging, fields, base)
    except store.StaleBase as exc:
        staging.discard()
        raise ConcurrentWriteError(
            f"{out} changed while this build ran (another writer published); run the build "
            "again: it reuses the vectors already encoded") from exc
    except BaseException:
        staging.discard()
        raise
    sqlite = out / manifest["files"]["sqlite"]["path"]
    return SemanticIndex(store.Version(out, manifest, token, index, db.open_readonly(sqlite),
                                       lexical), encoder=enc)


def _read(corpus, options: CorpusOptions | None) -> tuple[CorpusReport, str]:
    if isinstance(corpus, (str, Path)):
        return read_corpus(corpus, options), str(corpus)
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
    return report, "<documents>"


def _manifest(enc, spec, chunking: ChunkingConfig, report: CorpusReport, source: str) -> dict:
    stamp = store.now()
    return {
        "format": store.FORMAT, "format_version": store.FORMAT_VERSION, "version": 0,
        "built_at": stamp, "updated_at": stamp,
        "encoder": encoder_fields(enc),
        "dim": enc.dim, "metric": "cosine", "normalized": True,
        "preset": spec.preset, "faiss_spec": spec.factory, "knobs": spec.knobs,
        "chunking": chunking.to_dict(), "source": source, "rows": report.rows,
        "duplicates": report.duplicates, "skipped": [s.to_dict() for s in report.skipped],
        "counts": {}, "metadata_fields": {}, "files": {},
    }

