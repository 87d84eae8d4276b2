"""The indexer's public surface is deliberate: this pins it."""

import indexer


def test_public_api_is_pinned():
    assert sorted(indexer.__all__) == sorted([
        "MODES", "PRESETS", "BuildProgress", "Chunk", "ChunkingConfig", "CorpusError",
        "CorpusOptions", "CorpusReport", "CorruptIndexError", "Document",
        "EncoderMismatchError", "Hit", "IndexStats", "IndexerError", "QueryError",
        "SemanticIndex", "SkippedRow", "build_index", "chunk_documents", "default_index",
        "read_corpus", "rrf",
    ])
    for name in indexer.__all__:
        assert getattr(indexer, name) is not None
    assert indexer.PRESETS == ("flat", "hnsw", "ivf", "ivfpq", "sq8", "auto")
