"""The indexer's public surface is deliberate: this pins it."""

import inspect

import indexer


def test_public_api_is_pinned():
    assert sorted(indexer.__all__) == sorted([
        "FUSIONS", "MODES", "PRESETS", "BackendMismatchError", "Bm25Params", "BuildProgress",
        "Chunk",
        "ChunkingConfig",
        "Comparison",
        "ConcurrentWriteError",
        "CorpusError", "CorpusOptions", "CorpusReport", "CorruptIndexError", "DiskFullError",
        "Document",
        "EncoderMismatchError", "FolderIndex", "FoundIndex", "Hit", "IndexLocation",
        "IndexStats", "IndexerError", "MigrationReport", "MilvusIndex", "Movement",
        "QueryError", "SearchRun", "SemanticIndex", "SkippedRow", "StoredBatch", "SyncReport",
        "UnavailableError", "build_index", "chunk_documents", "compare", "default_index",
        "find_indexes", "fuse", "locate", "migrate", "open_index", "rank_movements",
        "read_corpus", "rebuild_index", "rrf", "search_run", "sync_folder",
    ])
    errors = [n for n in indexer.__all__ if n.endswith("Error")]
    assert all(issubclass(getattr(indexer, n), indexer.IndexerError) for n in errors)
    functions = ["build_index", "chunk_documents", "compare", "default_index", "find_indexes",
                 "fuse", "locate", "migrate", "open_index", "rank_movements", "read_corpus",
                 "rebuild_index", "rrf", "search_run", "sync_folder"]
    assert all(inspect.isfunction(getattr(indexer, n)) for n in functions)
    classes = set(indexer.__all__) - set(errors) - set(functions) - {"FUSIONS", "MODES", "PRESETS"}
    assert all(inspect.isclass(getattr(indexer, n)) for n in classes)
    assert indexer.PRESETS == ("flat", "hnsw", "ivf", "ivfpq", "ivfpq-disk", "sq8", "auto")
    assert indexer.MODES == ("dense", "lexical", "hybrid")
    assert indexer.FUSIONS == ("rrf", "minmax", "zscore")
    assert not hasattr(indexer.SemanticIndex, "build")  # build_index is the one way to build
