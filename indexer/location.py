"""The location contract: where an index lives, read once. `IndexLocation` is what differs between
the stores beyond an opened index: opening, reading the manifest without opening, telling a new
version, building into it, copying into it, and which addresses are its own. Each store has one
(`indexer.folder.FolderLocation`, `indexer.milvus.MilvusLocation`); the door, `indexer.stores`,
names them and turns a target into one (`locate`). Callers (build, rebuild, migrate, the app, the
service) never ask which store it is."""

from __future__ import annotations

import shutil
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from .private import BUILD, remove_private

if TYPE_CHECKING:
    from common.lexical import Bm25Params
    from encoder import Encoder

    from .build_progress import BuildProgress
    from .chunking import Chunk, ChunkingConfig
    from .corpus import CorpusReport
    from .documents import Document
    from .index import SemanticIndex
    from .stored import StoredBatch

Progress = Callable[[int, int], None]  # (documents copied, documents in all)


@dataclass
class Built:
    """What a build hands its target to publish (`BuildTarget.publish`): the corpus read, its
    chunks and their vectors, and the settings every later version keeps."""

    encoder: Encoder  # what made the vectors (name, fingerprint, backend go in the manifest)
    docs: list[Document]
    chunks: list[Chunk]
    vectors: Any  # (chunks, dim) float32 rows, or the Ray build's `ShardedVectors`
    preset: str  # as asked ("auto" included): the store picks its index by the chunk count
    chunking: ChunkingConfig
    bm25: Bm25Params
    report: CorpusReport  # rows read, duplicates and skipped rows, for the manifest
    source: str  # what the corpus was, for the manifest
    build: dict  # the manifest's `build`: engine, workers, seconds per stage
    staging: Any = None  # where Ray's workers wrote the rows (`BuildTarget.ray_staging`)


class BuildTarget(ABC):
    """A build's way into one location, opened before the corpus is read (a bad target fails
    first). The build encodes into shard folders under `work`, then `publish`es."""

    def __init__(self, work: Path) -> None:
        self.work = work  # where the build keeps its resumable shards until it publishes
        self.new = not work.exists()  # made by this build: a failed one leaves no trace of it

    def ray_staging(self, dim: int, bm25: dict, ray_address: str | None, shards: Path,
                    docs: Sequence = ()):
        """Where Ray's workers write their chunk rows of `docs` as they encode (None: the
        driver publishes everything at the end)."""
        return None

    @abstractmethod
    def publish(self, built: Built, progress: Callable[[BuildProgress], None]
                ) -> SemanticIndex:
        """The built index published at this location (replacing what was there), opened;
        `progress` hears its index and save stages."""

    def finished(self) -> None:
        """After a successful publish: drop what only the build needed (the shards of this
        build and of others that no live writer holds)."""
        remove_private(self.work, BUILD)

    def abandoned(self) -> None:
        """After a failed build that kept no shards: remove the work folder it made, unless an
        index lives there (`holds_index`)."""
        if self.new and not self.holds_index():
            shutil.rmtree(self.work, ignore_errors=True)

    def holds_index(self) -> bool:
        """True when `work` holds an index itself (a folder index's own folder)."""
        return False


class IndexLocation(ABC):
    """One store's places. A store claims its own addresses: those in its `scheme`, and files
    `NAME<pointer_suffix>` holding one (how an index root lists it beside folders); the store
    without either (the folder store) takes every other path (`indexer.stores.locate`)."""

    kind: ClassVar[str]  # "folder" | "milvus", for messages and `/v1/indexes`
    scheme: ClassVar[str | None] = None  # its addresses' prefix, any case ("milvus:")
    pointer_suffix: ClassVar[str | None] = None  # a file NAME<suffix> holds one of its addresses
    # a search of an opened index runs in this process without waiting on another (a server)
    searches_in_process: ClassVar[bool] = True
    # `build --store KIND`'s flags naming a place of this store: {flag: (metavar, help)}; a
    # store without them is named by `--out`
    flags: ClassVar[dict[str, tuple[str, str]]] = {}

    @classmethod
    def from_flags(cls, values: dict[str, str]) -> IndexLocation:
        """The location `flags` name, each given (`IndexerError` naming what is wrong)."""
        raise NotImplementedError(f"the {cls.kind} store is named by --out, not by flags")

    @classmethod
    def names(cls, target: object) -> bool:
        """True when `target` is written as one of this store's addresses (a mistyped one
        too: `claim` refuses it in words), or is a pointer of this store's: a file there (any
        kind but a folder, a broken link too: reading it says what is wrong)."""
        if cls.scheme is not None and not isinstance(target, Path) and \
                str(target).lower().startswith(cls.scheme):
            return True
        return isinstance(target, (str, Path)) and cls._pointer(Path(target)) and \
            (Path(target).exists() or Path(target).is_symlink())

    @classmethod
    @abstractmethod
    def claim(cls, target: str | Path, role: str = "index path",
              within: str | Path | None = None) -> IndexLocation:
        """The location `target` names: one `names` accepted (or, for the store that takes
        what no other names, any path). `role` names the argument in errors; `within` is the
        index root a pointer was found in (a link out of it is refused)."""

    @classmethod
    def entry(cls, path: Path) -> Path | None:
        """Where `path`, an entry of a folder being searched for indexes, holds one of this
        store's, the path its name is read from (a pointer's, without its suffix); else None.
        Reads no file."""
        return path.with_suffix("") if cls._pointer(path) else None

    @classmethod
    def _pointer(cls, path: Path) -> bool:
        """`path` is named as this store's pointer and is no folder."""
        return cls.pointer_suffix is not None and path.suffix == cls.pointer_suffix \
            and not path.is_dir()

    @classmethod
    def entry_named(cls, base: Path) -> Path:
        """The entry an index of this store named `base` would be (`entry`'s inverse)."""
        if cls.pointer_suffix is None:
            return base
        return base.with_name(base.name + cls.pointer_suffix)

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
