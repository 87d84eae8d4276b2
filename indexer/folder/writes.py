"""The changing half of `FolderIndex`: copy-on-write into a private `WorkingCopy`, then
add / upsert / delete / compact on it, and `save()` publishing it as the next version, re-applying
the changes on top when another writer published first."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..disk_full import writes_index
from ..documents import Document
from ..errors import ConcurrentWriteError
from ..validation import check_doc_ids
from . import db, field_kinds, store
from .changes import WorkingCopy
from .columns import Columns
from .columns_delta import extend
from .lexical_delta import bm25_folder

REBASES = 5  # how often a save re-applies its changes over other writers' before it gives up


class FolderWrites:
    """Mixed into `FolderIndex`, whose reading half provides the state below and `location`,
    `conn`, `manifest`, `spec`, `lexical`, `encoder`, `_checked`, `_encoded` and `open_folder`."""

    _version: store.Version
    _work: WorkingCopy | None
    _encoder: object | None
    _backend: str | None
    _verify: bool
    _values: dict
    _search: object | None
    _lexical: object | None

    def _writable(self) -> WorkingCopy:
        """Copy-on-write: the first change copies the published store into a private file."""
        if self._work is None:
            self._work = WorkingCopy(self.location, self._version.conn,
                                     self._version.vectors.for_writer(),
                                     self.spec, self.manifest["dim"], self.field_types(),
                                     field_kinds.counts_from_json(self.manifest.get("metadata_kind_counts")))
            self._values.clear()  # values kept from the published version no longer hold
        self._changed()
        return self._work

    def _changed(self) -> None:
        self._search = None
        self._lexical = None

    @writes_index("adding documents")
    def add(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
            progress: Callable[[int, int], None] | None = None, vectors=None) -> int:
        """Add new documents (ids must be new: use `upsert` to replace). Returns chunks added.
        `progress(chunks embedded, chunks in all)` is called every few batches."""
        return self._insert("add", self._checked(documents, batch_size, replace=False),
                            batch_size, progress, vectors)

    @writes_index("adding documents")
    def upsert(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None, vectors=None) -> int:
        """Add documents, replacing any with the same id (an id twice among them is refused)."""
        return self._insert("upsert", self._checked(documents, batch_size, replace=True),
                            batch_size, progress, vectors)

    def _write_kinds(self) -> dict[str, str]:
        """The metadata field kinds a write must keep (the working copy's, kept as it changes:
        reading them afresh would scan every document's metadata)."""
        return self._work.fields if self._work else self.field_types()

    def _insert(self, how: str, docs: list[Document], batch_size: int, progress,
                given=None) -> int:
        """Chunk and encode `docs` (before any change), then `add` or `upsert` them."""
        if not docs:
            return 0
        chunks, vectors = self._encoded(docs, batch_size, progress, given)
        return getattr(self._writable(), how)(docs, chunks, vectors)

    @writes_index("deleting documents")
    def delete(self, doc_ids: Sequence[str]) -> int:
        """Delete documents by id (a list); unknown ids are ignored. Returns documents deleted:
        `missing(ids)` names those not in the index."""
        doc_ids = check_doc_ids(doc_ids)
        if not db.existing_ids(self.conn, doc_ids):
            return 0
        return len(self._writable().delete(doc_ids))

    @writes_index("compacting")
    def compact(self) -> int:
        """Rebuild the FAISS index from live vectors, dropping tombstones. Returns those dropped."""
        if self._work is None and not db.tombstones(self.conn) and \
                not self._version.vectors.has_changes():
            return 0
        return self._writable().compact()

    def discard(self) -> None:
        """Drop the unsaved changes, and the private staging folder that holds them (a writer
        that gives up after a failed write, a full disk say, leaves nothing behind)."""
        if self._work is not None:
            self._work.discard()
            self._work = None
            self._values.clear()
            self._changed()

    @writes_index("saving")
    def save(self) -> None:
        """Publish the changes as the next version (atomic: readers see old or new, whole).

        When another writer published since this index was opened, the changes are made again
        on top of that version (a document `add`ed by both is a `ConcurrentWriteError`)."""
        if self._work is None:
            return
        for _ in range(REBASES):
            try:
                return self._publish()
            except store.StaleBase:
                self._rebase()
        raise ConcurrentWriteError(f"other writers kept publishing {self.location} while this one "
                                   f"re-applied its changes {REBASES} times; try again")

    def _publish(self) -> None:
        work = self._work
        lexical = self.lexical
        fields = {**self.manifest, "counts": db.counts(work.conn),
                  "metadata_fields": field_kinds.kinds_of(work.counts),
                  "metadata_kind_counts": field_kinds.counts_to_json(work.counts)}
        self._search = None  # it holds the connection `stage` closes
        columns = self._next_columns(work, fields["metadata_fields"])
        work.stage(lexical, columns, bm25_folder(self._version))
        manifest, token = store.publish(self.location, work.staging, fields,
                                        self._version.token)
        sqlite = self.location / manifest["files"]["sqlite"]["path"]
        work.vectors.published(self.location / manifest["files"]["faiss"]["path"])
        self._version = store.Version(self.location, manifest, token, work.vectors,
                                      db.open_readonly(sqlite), lexical, columns)
        self._work = None

    def _next_columns(self, work: WorkingCopy, kinds: dict[str, str]) -> Columns:
        """The filter index of the version being published: the published one's extended by
        the change where that is exact (`extend`), else built from the whole store."""
        if work.extendable:
            columns = extend(self._version.columns, self._version.manifest.get("metadata_fields"),
                             work.conn, kinds, work.start, work.deleted())
            if columns is not None:
                return columns
        return Columns.build(work.conn, kinds)

    def _rebase(self) -> None:
        """Adopt the folder's current version and make this index's changes again on it."""
        fresh = type(self).open_folder(self.location, encoder=self._encoder, verify=self._verify,
                                   backend=None if self._encoder else self._backend)
        work = fresh._writable()
        try:
            self._work.replay(work)
        except BaseException:
            work.discard()
            raise
        self._work.discard()
        self._version, self._work, self._values = fresh._version, work, {}
        self._changed()
