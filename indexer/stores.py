"""Find the indexes below a root, of either store, without opening them: folders holding a
`manifest.json`, and `NAME.milvus` files each holding a Milvus index's address (how an index
root lists Milvus indexes beside its folders). The app and the service list what this finds,
and tell a new version of each by `locate(path).stamp()`."""

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

    @property
    def location(self) -> IndexLocation:
        return locate(self.path)


def find_indexes(root: str | Path, max_depth: int = 0) -> list[FoundIndex]:
    """The indexes in `root` (itself, when it is one) and in folders up to `max_depth` below
    it, sorted by name; hidden folders are skipped and an index folder is not searched further.
    A pointer named as a folder index beside it is left out (the folder keeps the name)."""
    root = Path(root)
    found: dict[str, FoundIndex] = {}
    if (root / MANIFEST).is_file():
        return [FoundIndex(root.name, root)]

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
                    found[_name(path, root)] = FoundIndex(_name(path, root), path)
                elif depth < max_depth:
                    visit(path, depth + 1)
            elif path.suffix == POINTER_SUFFIX and path.is_file():
                name = _name(path.with_suffix(""), root)
                found.setdefault(name, FoundIndex(name, path))

    visit(root, 0)
    return [found[n] for n in sorted(found)]


def _name(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
