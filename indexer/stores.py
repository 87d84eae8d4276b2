"""The door: the one module that names both stores. It turns a target into its store's location
(`locate`), opens an index (`open_index`, which `SemanticIndex.open` is) and finds the indexes
below a root (`find_indexes`, `index_named`), each store claiming its own addresses
(`IndexLocation.names`, `claim`, `entry`): a `milvus://` address or a `NAME.milvus` pointer file is
Milvus's, any other path the folder store's, so a folder path never passes through Milvus code.
Everything above (build, rebuild, migrate, sync, the CLI, the app, the service) goes through here
and never asks which store it is.

Finding indexes reads no pointer: listing them costs one directory walk, whatever the files hold.
A pointer is read (bounded, confined to the root: `indexer.milvus.pointer`) when its `location`
is asked for, and a bad one fails alone, named, while the others serve."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .folder import FolderIndex, FolderLocation
from .index import SemanticIndex
from .location import IndexLocation
from .milvus import MilvusIndex, MilvusLocation

__all__ = ["STORES", "FolderIndex", "FoundIndex", "MilvusIndex", "find_indexes", "index_named",
           "locate", "open_index"]

# each store's location, in the order a name found twice goes to (an index folder keeps the name
# of a pointer beside it); the folder store takes every path no other store claims
STORES: tuple[type[IndexLocation], ...] = (FolderLocation, MilvusLocation)
_CLAIMING = tuple(s for s in STORES if s is not FolderLocation)


def locate(target: str | Path | IndexLocation, *, role: str = "index path",
           within: str | Path | None = None) -> IndexLocation:
    """The location `target` names: a `milvus://` address or a `NAME.milvus` file holding one
    (Milvus), else a folder path. `role` names the argument in errors; `within` is the index
    root a pointer file was found in (a link out of it is refused; default: the pointer's own
    folder)."""
    if isinstance(target, IndexLocation):
        return target
    store = next((s for s in _CLAIMING if s.names(target)), FolderLocation)
    return store.claim(target, role, within)


def open_index(target: str | Path, *, encoder=None, verify: bool = True,
               backend: str | None = None) -> SemanticIndex:
    """The index at `target` (a folder, a `milvus://` address or a `NAME.milvus` pointer),
    opened as `SemanticIndex.open` says."""
    return locate(target).open(encoder=encoder, verify=verify, backend=backend)


SemanticIndex.opener = staticmethod(open_index)  # `SemanticIndex.open`: the contract's own door


@dataclass(frozen=True)
class FoundIndex:
    name: str  # the path below the root, a pointer without its `.milvus` suffix
    path: Path  # the index folder, or the pointer file
    root: Path | None = None  # the root it was found in: a pointer's link may not leave it

    @property
    def location(self) -> IndexLocation:
        """Where it is (`PointerError`, a `CorruptIndexError`, for a pointer naming none)."""
        return locate(self.path, within=self.root)


def find_indexes(root: str | Path, max_depth: int = 0) -> list[FoundIndex]:
    """The indexes in `root` (itself, when it is one) and in folders up to `max_depth` below
    it, sorted by name, without opening them; hidden folders are skipped and an index folder is
    not searched further. A pointer named as a folder index beside it is left out (the folder
    keeps the name); a pointer of any kind of file (a broken link too) is listed, and says
    what is wrong with it when its `location` is asked for."""
    root = Path(root)
    if FolderLocation.entry(root) is not None:
        return [FoundIndex(root.name, root, root)]
    found: dict[str, tuple[int, FoundIndex]] = {}  # name -> (its store's place in STORES, it)

    def visit(folder: Path, depth: int) -> None:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            return
        for path in entries:
            if path.name.startswith("."):
                continue
            held = _entry(path)
            if held is not None:
                rank, named = held
                name = named.relative_to(root).as_posix()
                if name not in found or rank < found[name][0]:
                    found[name] = (rank, FoundIndex(name, path, root))
            elif depth < max_depth and path.is_dir():
                visit(path, depth + 1)

    visit(root, 0)
    return [found[n][1] for n in sorted(found)]


def index_named(root: str | Path, name: str) -> FoundIndex | None:
    """The index `find_indexes(root)` lists as `name` (one entry of `root`), found without
    listing the root (and, like it, without reading a pointer); None where there is none."""
    root = Path(root)
    for store in STORES:
        path = store.entry_named(root / name)
        if (path.exists() or path.is_symlink()) and store.entry(path) is not None:
            return FoundIndex(name, path, root)  # an entry of the root, as listing finds it
    return None


def _entry(path: Path) -> tuple[int, Path] | None:
    """(the store's place in STORES, the path the name is read from) of the index at `path`."""
    for rank, store in enumerate(STORES):
        named = store.entry(path)
        if named is not None:
            return rank, named
    return None
