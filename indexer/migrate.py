"""Copy an index between a folder and Milvus, both ways: `migrate(src, dst)`, each a folder or a
`milvus://` address. What is copied is what was stored (documents, chunk spans, BM25 tokens,
the vectors themselves, the manifest's encoder and settings): nothing is re-encoded, so no model
is loaded. Documents go over in batches, in a fixed order; a run that dies is resumed by running
it again:
- into Milvus, the batches land in a staging collection pair `NAME_migrating`, marked with the
  source's identity; a re-run keeps the documents already whole there (chunk ids are hashes of
  document id and chunk number, so a batch written twice is upserted, never doubled);
- into a folder, each batch is a file in a private `.build-migrate-<key>/` folder of the target,
  which a re-run reuses; the folder index is then built and published as the build publishes.
The copy is verified before it is final: counts, then a sample of documents (text, title,
metadata, chunk spans, BM25 tokens, vectors bit for bit) read back from both sides. Into Milvus
the staging pair replaces the target only once verified; into a folder a mismatch raises after
publishing (the previous version stays on disk beside it until the next write).

BM25 tokens in Milvus have apostrophes as `_` (its analyzer splits words at `'`); coming back
into a folder every `_` becomes `'`, so a curly apostrophe (’) in a token comes back straight."""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common import check_path, write_atomic
from common.lexical import Bm25Params, LexicalIndex

from . import db, store
from .documents import Document
from .errors import IndexerError
from .index import SemanticIndex
from .migrate_sides import Batch, FolderSide, MilvusSide, open_side
from .milvus import connect, is_milvus, parse_address
from .milvus.connect import write_lock
from .milvus.manifest import new_manifest, with_metadata, write_manifest
from .milvus.rows import APOSTROPHES, chunk_id, document_rows, unfit
from .milvus.schema import INDEX_TYPES, create_collections, documents_collection, index_type
from .presets import create, spec_for, train_and_add
from .shards import shards_folder

BATCH_DOCS = 256
SAMPLE = 200  # documents compared end to end after the copy
STAGING = "_migrating"
MARK = "bertscope.migration"  # the staging collection's property: which source it copies
Progress = Callable[[int, int], None]  # (documents copied, documents in all)


class MigrationError(IndexerError):
    """The copy does not match its source."""


@dataclass
class MigrationReport:
    src: str
    dst: str
    documents: int
    chunks: int
    resumed: int  # documents found already copied by an earlier run
    verified: int  # documents compared end to end
    seconds: float


# -- the copy ----------------------------------------------------------------------------------
def migrate(src: str | Path, dst: str | Path, *, batch_docs: int = BATCH_DOCS,
            sample: int = SAMPLE, preset: str | None = None,
            progress: Progress | None = None) -> MigrationReport:
    """Copy the index at `src` to `dst` (a folder and a `milvus://` address, either way round),
    resuming an earlier run that stopped, and verify the copy. `preset`: the target's vector
    index (default: the source's where the target has it, else "auto")."""
    clock = time.perf_counter()
    if is_milvus(src) == is_milvus(dst):
        raise ValueError("migrate copies between a folder and Milvus: give one of each "
                         f"(src {src!r}, dst {dst!r}); `rebuild` re-indexes a folder")
    source = open_side(src)
    ids = source.doc_ids()
    write = _into_milvus if is_milvus(dst) else _into_folder
    report = write(source, ids, dst, batch_docs, sample, preset, progress or (lambda d, n: None))
    report.seconds = round(time.perf_counter() - clock, 3)
    return report


def _identity(source) -> str:
    m = source.manifest
    return json.dumps({"source": source.name, "version": m.get("version"),
                       "updated_at": m.get("updated_at"), "counts": source.counts()},
                      sort_keys=True)


def _batches(ids: list[str], size: int) -> list[list[str]]:
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"batch_docs must be a positive integer, got {size!r}")
    return [ids[i:i + size] for i in range(0, len(ids), size)]


def _into_milvus(source: FolderSide, ids, dst, batch_docs, sample, preset, progress):
    address = parse_address(str(dst))
    _check_fits(source, ids, address)
    client = connect(address, create=True)
    staging = address.collection + STAGING
    m = source.manifest
    kind = index_type(preset or (m["preset"] if m["preset"] in INDEX_TYPES else "auto"), len(ids))
    mark = _identity(source)
    with write_lock(address):
        props = (client.describe_collection(staging).get("properties") or {}
                 if client.has_collection(staging) else {})
        if props.get(MARK) != mark:  # none yet, or an earlier run copied something else
            for name in (staging, documents_collection(staging)):
                if client.has_collection(name):
                    client.drop_collection(name)
            create_collections(client, staging, m["dim"], kind, Bm25Params.of(m).to_dict(),
                               {MARK: mark})
        target = MilvusSide(str(address), staging)
        done = set()
        for part in _batches(ids, 1000):  # documents with every part there: whole
            rows = target.documents(part, ["doc_id", "part", "parts"])
            have = Counter(r["doc_id"] for r in rows)
            done |= {r["doc_id"] for r in rows if have[r["doc_id"]] == r["parts"]}
        copied = len(done)
        progress(copied, len(ids))
        for part in _batches([d for d in ids if d not in done], batch_docs):
            b = source.batch(part)
            client.upsert(staging, _chunk_rows(b))
            client.upsert(target.docs, document_rows(b.docs))  # last: the documents are whole
            copied += len(part)
            progress(copied, len(ids))
        for name in (staging, target.docs):
            client.flush(name)
        verified = _verify(source, target, ids, sample)
        manifest = new_manifest(m["encoder"], m["dim"], kind.spec, m["chunking"],
                                Bm25Params.of(m).to_dict(), m["source"], m["rows"],
                                m["duplicates"], m["skipped"])
        for part in _batches(ids, 1000):
            rows = target.documents(part, ["metadata", "part"])
            manifest = with_metadata(manifest, [r["metadata"] or {} for r in rows
                                                if r["part"] == 0])
        manifest.update(built_at=m["built_at"], counts={**target.counts(), "tombstones": 0},
                        build={"engine": "migrate", "from": source.name})
        write_manifest(client, staging, manifest)
        client.alter_collection_properties(staging, properties={MARK: ""})
        for old, new in ((staging, address.collection), (target.docs,
                                                         documents_collection(address.collection))):
            if client.has_collection(new):
                client.drop_collection(new)
            client.rename_collection(old, new)
            client.load_collection(new)  # searchable at once, by indexes opened before too
    return MigrationReport(source.name, str(address), len(ids), manifest["counts"]["chunks"],
                           len(done), verified, 0.0)


def _check_fits(source: FolderSide, ids: list[str], address) -> None:
    """Every document of `source` fits Milvus's fields (id, title, chunk texts and tokens within
    its VARCHAR limits, metadata integers within 64 bits): checked before anything is written,
    so that a copy never fails half-way on a document it could never hold."""
    for part in _batches(ids, 1000):
        docs = db.documents(source.index.conn, part)
        spans: dict[str, list] = {}
        for _, doc_id, _, start, end, lex in db.chunks_of(source.index.conn, part):
            spans.setdefault(doc_id, []).append((start, end, lex.translate(APOSTROPHES)))
        for doc_id in part:
            problem = unfit(docs[doc_id], spans.get(doc_id, []))
            if problem:
                raise MigrationError(f"{problem}: {source.name} cannot be copied into {address} "
                                     "as it is, and nothing was written; shorten or delete that "
                                     "document in the folder index, then migrate again")


def _chunk_rows(b: Batch) -> list[dict]:
    docs = {d.id: d for d in b.docs}
    rows = []
    for (doc_id, no, start, end, lex), vector in zip(b.chunks, b.vectors, strict=True):
        doc = docs[doc_id]
        rows.append({"chunk_id": chunk_id(doc_id, no), "doc_id": doc_id, "chunk_no": no,
                     "char_start": start, "char_end": end, "title": doc.title,
                     "text": doc.text[start:end], "tokens": lex.translate(APOSTROPHES),
                     "vector": vector.tolist(), "metadata": doc.metadata})
    return rows


def _into_folder(source: MilvusSide, ids, dst, batch_docs, sample, preset, progress):
    out = check_path(dst, "dst", "a folder path for the index")
    base = store.check_target(out)
    key = hashlib.blake2b(f"{_identity(source)}|{batch_docs}".encode(), digest_size=10)
    work = shards_folder(out, f"migrate-{key.hexdigest()}")
    try:
        plan = work.path / "plan.json"
        if plan.exists():
            ids = json.loads(plan.read_text(encoding="utf-8"))
        else:
            with write_atomic(plan, "w", encoding="utf-8") as fh:
                json.dump(ids, fh)
        parts = _batches(ids, batch_docs)
        resumed = 0
        for i, part in enumerate(parts):
            done = work.path / f"part-{i:06d}.npz"
            if done.exists():
                resumed += len(part)
            else:
                b = source.batch(part)
                with write_atomic(done) as fh:
                    np.savez(fh, vectors=b.vectors, rows=np.array(json.dumps(
                        {"docs": [[d.id, d.title, d.text, d.metadata] for d in b.docs],
                         "chunks": b.chunks}, ensure_ascii=False)))
            progress(sum(len(p) for p in parts[:i + 1]), len(ids))
        batches = [_load_part(work.path / f"part-{i:06d}.npz") for i in range(len(parts))]
        index = _publish_folder(out, base, source.manifest, batches, preset, source.name)
    except BaseException:
        work.release()  # kept: a re-run continues from its parts
        raise
    work.discard()
    verified = _verify(source, FolderSide(out), ids, sample)
    return MigrationReport(source.name, str(out), len(ids), index.counts()["chunks"], resumed,
                           verified, 0.0)


def _load_part(path: Path) -> Batch:
    with np.load(path, allow_pickle=False) as z:
        data = json.loads(str(z["rows"]))
        vectors = z["vectors"]
    docs = [Document(i, text, title, meta) for i, title, text, meta in data["docs"]]
    return Batch(docs, [tuple(c) for c in data["chunks"]], vectors)


def _publish_folder(out: Path, base, m: dict, batches: list[Batch], preset: str | None,
                    src: str) -> SemanticIndex:
    """The folder index of `batches`, published as the next version of `out`."""
    chunks = [c for b in batches for c in b.chunks]
    vectors = np.vstack([b.vectors for b in batches]) if chunks else np.empty((0, m["dim"]))
    spec = spec_for(preset or m["preset"], len(chunks), m["dim"])
    ids = np.arange(len(chunks), dtype=np.int64)
    faiss_index = create(spec, m["dim"])
    train_and_add(faiss_index, vectors.astype(np.float32), ids)
    tokens = [lex.split(" ") if lex else [] for *_, lex in chunks]
    lexical = LexicalIndex.build(ids.tolist(), tokens, Bm25Params.of(m))
    staging = store.Staging(out)
    try:
        conn = db.open_writable(staging.file("sqlite"))
        with db.transaction(conn):
            db.insert_documents(conn, (d for b in batches for d in b.docs))
            db.insert_chunks(conn, ((i, *c) for i, c in enumerate(chunks)))
            db.set_next_chunk_id(conn, len(chunks))
        fields = {k: m[k] for k in ("format", "format_version", "built_at", "encoder", "dim",
                                    "metric", "normalized", "chunking", "source", "rows",
                                    "duplicates", "skipped")}
        fields.update(preset=spec.preset, faiss_spec=spec.factory, knobs=spec.knobs,
                      bm25=Bm25Params.of(m).to_dict(), counts=db.counts(conn),
                      metadata_fields=db.field_types(conn),
                      build={"engine": "migrate", "from": src})
        conn.close()
        store.write_vectors(faiss_index, staging.file("faiss"))
        lexical.save(staging.file("bm25"))
        store.publish(out, staging, fields, base)
    except BaseException:
        staging.discard()
        raise
    return SemanticIndex.open(out)


# -- verification ------------------------------------------------------------------------------
def _verify(src, dst, ids: list[str], sample: int) -> int:
    """Counts equal, and `sample` documents (seeded; the first and last always) equal on both
    sides; returns how many were compared. Raises `MigrationError` naming the first difference."""
    have, want = dst.counts(), src.counts()
    if have != want:
        raise MigrationError(f"{dst.name} holds {have} after the copy; {src.name} holds {want}")
    picks = sorted(set(random.Random(0).sample(range(len(ids)), min(sample, len(ids))))
                   | ({0, len(ids) - 1} if ids else set()))
    chosen = [ids[i] for i in picks]
    for part in _batches(chosen, BATCH_DOCS):
        a, b = src.batch(part), dst.batch(part)
        for x, y in zip(a.docs, b.docs, strict=True):
            if (x.id, x.title, x.text, x.metadata) != (y.id, y.title, y.text, y.metadata):
                raise MigrationError(f"document {x.id!r} differs in {dst.name} from {src.name}")
        norm = [[c[:4] + (c[4].translate(APOSTROPHES),) for c in s.chunks] for s in (a, b)]
        if norm[0] != norm[1]:
            raise MigrationError(f"the chunks of documents {part[0]!r}... differ in {dst.name}")
        if not np.array_equal(a.vectors, b.vectors):
            raise MigrationError(f"the vectors of documents {part[0]!r}... differ in {dst.name}")
    return len(chosen)


__all__ = ["BATCH_DOCS", "MigrationError", "MigrationReport", "migrate"]
