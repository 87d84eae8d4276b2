"""Errors the indexer raises on purpose; each message names the fix."""


class IndexerError(ValueError):
    """Base class: anything the user can fix (bad input, wrong encoder, damaged index)."""


class QueryError(IndexerError):
    """An invalid search: empty query, k <= 0, unknown filter field, wrong value type, bad knob."""


class CorpusError(IndexerError):
    """A corpus that cannot be read at all, or a bad row under `on_error="fail"`."""


class EncoderMismatchError(IndexerError):
    """The index was built with a different encoder than the one offered."""


class CorruptIndexError(IndexerError):
    """A file of the index is missing, truncated or fails its checksum."""
