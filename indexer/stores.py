"""Find the indexes below a root, of either store, without opening them: folders holding a
`manifest.json`, and `NAME.milvus` files each holding a Milvus index's address (how an index
root lists Milvus indexes beside its folders). The app and the service list what this finds,
and tell a new version of each by `locate(path).stamp()`.

Nothing here reads a pointer: listing the indexes costs one directory walk, whatever the files
hold. A pointer is read (bounded, confined to the root: `indexer.milvus.pointer`) when its
`location` is asked for, and a bad one fails alone, named, while the others serve."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .folder.store import MANIFEST
from .location import IndexLocation, locate
from .milvus.address import POINTER_SUFFIX


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
    it, sorted by name; hidden folders are skipped and an index folder is not searched further.
    A pointer named as a folder index beside it is left out (the folder keeps the name)."""
    root = Path(root)
    found: dict[str, FoundIndex] = {}
    if (root / MANIFEST).is_file():
        return [FoundIndex(root.name, root, root)]

    def visit(folder: Path, depth: int) -> None:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            return
        for path in entries:
            if path.name.startswith("."):
                continue
            if path.is_dir():
                if (path / MANIFEST).is_file():
                    found[_name(path, root)] = FoundIndex(_name(path, root), path, root)
                elif depth < max_depth:
                    visit(path, depth + 1)
            elif path.suffix == POINTER_SUFFIX:  # any kind of file, a broken link too: a bad
                name = _name(path.with_suffix(""), root)  # one is listed, and says why on use
                found.setdefault(name, FoundIndex(name, path, root))

    visit(root, 0)
    return [found[n] for n in sorted(found)]


def _name(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
