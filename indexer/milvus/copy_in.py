"""Copy an index into Milvus as stored (`indexer.migrate`): the batches land in a staging
collection pair `NAME_migrating`, marked with the source's identity; a re-run keeps the
documents already whole there (chunk ids are hashes of document id and chunk number, so a batch
written twice is upserted, never doubled). The staging pair replaces the target only once
verified."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from common.documents import chunk_metadata
from common.lexical import Bm25Params

from ..errors import MigrationError
from ..stored import StoredBatch
from . import columns as filter_columns
from .address import MilvusAddress
from .columns import Columns
from .connect import connect, write_lock
from .index import MilvusIndex
from .manifest import new_manifest, with_metadata, write_manifest
from .rows import TOKEN_ENCODING, chunk_id, document_rows, encode_tokens, unfit
from .schema import INDEX_TYPES, create_collections, index_type, replace_collections
from .stored import StoredRows

STAGING = "_migrating"
MARK = "bertscope.migration"  # the staging collection's property: which source it copies


def copy_into_milvus(source, ids: Sequence[str], address: MilvusAddress, batch_docs: int,
                     preset: str | None, progress: Callable[[int, int], None], identity: str,
                     verify) -> tuple[MilvusIndex, int, int]:
    m = source.manifest
    columns = filter_columns.plan(m.get("metadata_fields") or {})
    columns = filter_columns.drop(columns, _check_fits(source, ids, address, columns))
    client = connect(address, create=True)
    staging = address.collection + STAGING
    kind = index_type(preset or (m["preset"] if m["preset"] in INDEX_TYPES else "auto"), len(ids))
    bm25 = Bm25Params.of(m).to_dict()
    with write_lock(address):
        props = (client.describe_collection(staging).get("properties") or {}
                 if client.has_collection(staging) else {})
        target = StoredRows(client, staging, TOKEN_ENCODING, m["dim"])
        if props.get(MARK) != identity:  # none yet, or an earlier run copied something else
            for name in (staging, target.docs):
                if client.has_collection(name):
                    client.drop_collection(name)
            create_collections(client, staging, m["dim"], kind, bm25, {MARK: identity}, columns,
                               lite=address.lite)
        for name in (staging, target.docs):
            client.load_collection(name)
        done = set()
        for at in range(0, len(ids), 1000):  # documents with every part there: whole
            rows = target.document_rows(ids[at:at + 1000], ["doc_id", "part", "parts"])
            have = Counter(r["doc_id"] for r in rows)
            done |= {r["doc_id"] for r in rows if have[r["doc_id"]] == r["parts"]}
        copied = len(done)
        progress(copied, len(ids))
        todo = [d for d in ids if d not in done]
        for at in range(0, len(todo), batch_docs):
            part = todo[at:at + batch_docs]
            b = source.stored(part)
            client.upsert(staging, _chunk_rows(b, columns))
            client.upsert(target.docs, document_rows(b.docs))  # last: the documents are whole
            copied += len(part)
            progress(copied, len(ids))
        for name in (staging, target.docs):
            client.flush(name)
        verified = verify(target)
        manifest = new_manifest(m["encoder"], m["dim"], kind.spec, m["chunking"], bm25,
                                m["source"], m["rows"], m["duplicates"], m["skipped"],
                                m.get("notes"))
        for at in range(0, len(ids), 1000):
            rows = target.document_rows(ids[at:at + 1000], ["metadata", "part"])
            manifest = with_metadata(manifest, [r["metadata"] or {} for r in rows
                                                if r["part"] == 0])
        manifest.update(built_at=m["built_at"], counts={**target.counts(), "tombstones": 0},
                        filter_columns=columns,
                        build={"engine": "migrate", "from": str(source.location)})
        write_manifest(client, staging, manifest)
        client.alter_collection_properties(staging, properties={MARK: ""})
        replace_collections(client, staging, address.collection)
    return MilvusIndex.open_address(address), len(done), verified


def _check_fits(source, ids: Sequence[str], address: MilvusAddress, columns: Columns
                ) -> set[str]:
    """Every document of `source` fits Milvus's fields (id, title, chunk texts and tokens within
    its VARCHAR limits, metadata integers within 64 bits): checked before anything is written,
    so that a copy never fails half-way on a document it could never hold. Returns the fields
    of `columns` some value of which their column cannot hold (`columns.partial`)."""
    partial: set[str] = set()
    for at in range(0, len(ids), 1000):
        b = source.stored(ids[at:at + 1000], vectors=False)
        partial |= filter_columns.partial(columns, [d.metadata for d in b.docs])
        spans: dict[str, list] = {}
        for doc_id, _, start, end, lex in b.chunks:
            spans.setdefault(doc_id, []).append((start, end, encode_tokens(lex)))
        for doc in b.docs:
            problem = unfit(doc, spans.get(doc.id, []))
            if problem:
                raise MigrationError(f"{problem}: {source.location} cannot be copied into "
                                     f"{address} as it is, and nothing was written; shorten or "
                                     "delete that document in the source index, then migrate "
                                     "again")
    return partial


def _chunk_rows(b: StoredBatch, columns: Columns) -> list[dict]:
    docs = {d.id: d for d in b.docs}
    rows = []
    for (doc_id, no, start, end, lex), vector in zip(b.chunks, b.vectors, strict=True):
        doc = docs[doc_id]
        metadata = chunk_metadata(doc.metadata, start)
        rows.append({"chunk_id": chunk_id(doc_id, no), "doc_id": doc_id, "chunk_no": no,
                     "char_start": start, "char_end": end, "title": doc.title,
                     "text": doc.text[start:end], "tokens": encode_tokens(lex),
                     "vector": vector.tolist(), "metadata": metadata,
                     **filter_columns.row_values(metadata, columns)})
    return rows
