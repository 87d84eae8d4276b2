"""Errors the indexer raises on purpose; each message names the fix."""

from common import corpus


class IndexerError(ValueError):
    """Base class: anything the user can fix (bad input, wrong encoder, damaged index)."""


class QueryError(IndexerError):
    """An invalid search: empty query, k <= 0, unknown filter field, wrong value type, bad knob."""


class CorpusError(IndexerError, corpus.CorpusError):
    """A corpus that cannot be read at all, or a bad row under `on_error="fail"` (the shared
    readers raise it through `indexer.CorpusOptions`)."""


class EncoderMismatchError(IndexerError):
    """The index was built with a different encoder than the one offered."""


class BackendMismatchError(EncoderMismatchError):
    """The offered encoder has the index's weights but runs on a backend whose vectors differ
    from those the index was built with beyond the fidelity gate (`encoder.FIDELITY_GATE`)."""


class CorruptIndexError(IndexerError):
    """A file of the index is missing, empty, truncated, unreadable or fails its checksum, or
    its manifest is damaged or from a newer BERTScope; the message names the file."""


class ConcurrentWriteError(IndexerError):
    """Another writer changed the index in a way this one's changes cannot be re-applied over
    (or kept publishing): reopen the index and apply the changes again."""


class MigrationError(IndexerError):
    """A copy (`indexer.migrate`) that cannot be made, or does not match its source."""


class UnavailableError(IndexerError):
    """The store's server does not answer (a Milvus server down, or unreachable): nothing the
    caller sent is wrong; the operator starts the server, or the caller retries later."""


class PointerError(CorruptIndexError):
    """A `NAME.milvus` pointer file that names no index: too large, not a regular file, a link
    leading outside its root, not UTF-8, empty, or no Milvus address. The message names the file
    and why, never what it holds (`indexer.milvus.pointer`)."""
