"""Where an index lives, read once: `locate(target)` turns a folder path, a `milvus://` address or
a `NAME.milvus` pointer file into an `IndexLocation` of its store (`indexer.folder.location`,
`indexer.milvus.location`). Everything that differs between the stores goes through it: opening,
reading the manifest without opening, telling a new version, building into it, copying into it.
Callers (build, rebuild, migrate, the app, the service) never ask which store it is."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

if TYPE_CHECKING:
    from .index import SemanticIndex
    from .stored import StoredBatch

Progress = Callable[[int, int], None]  # (documents copied, documents in all)


class BuildTarget(ABC):
    """A build's way into one location, opened before the corpus is read (a bad target fails
    first). The build encodes into shard folders under `work`, then `publish`es."""

    work: Path  # where the build keeps its resumable shards until it publishes

    def ray_staging(self, dim: int, bm25: dict, ray_address: str | None, shards: Path):
        """Where Ray's workers write their chunk rows as they encode (None: the driver publishes
        everything at the end)."""
        return None

    @abstractmethod
    def publish(self, enc, docs, chunks, vectors, preset: str, chunking, bm25, report,
                source: str, progress, build: dict, staging=None) -> SemanticIndex:
        """The built index published at this location (replacing what was there), opened."""

    def finished(self) -> None:  # noqa: B027 - a store with nothing to drop keeps this
        """After a successful publish: drop what only the build needed."""


class IndexLocation(ABC):
    kind: ClassVar[str]  # "folder" | "milvus", for messages and `/v1/indexes`

    @abstractmethod
    def __str__(self) -> str:
        """The location as a user writes it (a path or a `milvus://` address)."""

    @abstractmethod
    def open(self, *, encoder=None, verify: bool = True,
             backend: str | None = None) -> SemanticIndex:
        """The index here (see `SemanticIndex.open`)."""

    @abstractmethod
    def exists(self) -> bool:
        """True when an index (possibly damaged) is here."""

    @abstractmethod
    def read_manifest(self) -> dict:
        """The manifest, without loading the index (FileNotFoundError where there is none)."""

    @abstractmethod
    def stamp(self) -> Hashable:
        """Changes whenever readers must open the index again (a new version published, the
        index replaced); cheap enough to ask on every request."""

    def local_files(self) -> list[Path]:
        """The files and folders on this machine that hold the index (none for a server)."""
        return []

    def check_outside(self, out: Path, flag: str = "--out") -> None:
        """Refuse (`IndexerError`) a file to write that is, or lies inside, this index's own."""
        from .errors import IndexerError

        target = Path(out).resolve()
        for own in self.local_files():
            own = own.resolve()
            if target == own or own in target.parents:
                raise IndexerError(f"{flag} {out} is {'' if target == own else 'inside '}the "
                                   f"index {self}'s own files: writing there would damage it; "
                                   "give a path outside it")

    @abstractmethod
    def check_apart(self, source: IndexLocation, verb: str) -> None:
        """Refuse (`IndexerError`) to write here what `verb` makes of `source` when this is the
        source itself or lies inside it."""

    @abstractmethod
    def build_target(self, preset: str) -> BuildTarget:
        """A build into this location, checked before anything is read."""

    @abstractmethod
    def copy_in(self, source: SemanticIndex, ids: Sequence[str], batch_docs: int,
                preset: str | None, progress: Progress, identity: str,
                verify: Callable[[StoredReader], int]) -> tuple[SemanticIndex, int, int]:
        """`source`'s documents `ids` copied here as stored (no re-encoding) in batches of
        `batch_docs`, resuming what an earlier run with the same `identity` copied, and checked
        by `verify` (given the copy as a `StoredReader`; it returns the documents compared,
        raising on a difference) before it replaces what was here where the store allows, else
        right after. Returns (the copy opened, documents resumed, documents compared)."""


class StoredReader(Protocol):
    """What a copy is verified through: its counts and its stored rows (`SemanticIndex` is one)."""

    def counts(self) -> dict[str, int]: ...

    def stored(self, doc_ids: Sequence[str]) -> StoredBatch: ...


def locate(target: str | Path | IndexLocation, *, role: str = "index path",
           within: str | Path | None = None) -> IndexLocation:
    """The location `target` names: a `milvus://` address or a `NAME.milvus` file holding one
    (Milvus), else a folder path. `role` names the argument in errors; `within` is the index
    root a pointer file was found in (a link out of it is refused; default: the pointer's own
    folder)."""
    if isinstance(target, IndexLocation):
        return target
    from .milvus.address import EXAMPLE, milvus_target

    if isinstance(target, str) and target.lower().startswith("milvus:") \
            and not target.startswith("milvus://"):
        from .errors import IndexerError

        raise IndexerError(f"{role} {target[:80]!r} looks like a Milvus address without its "
                           f"'//': write milvus://…, e.g. {EXAMPLE}")
    address = milvus_target(target, within)
    if address is not None:
        from .milvus.location import MilvusLocation

        pointer = Path(target) if not str(target).startswith("milvus://") else None
        return MilvusLocation(address, pointer)
    from .folder.location import FolderLocation

    return FolderLocation.of(target, role)
