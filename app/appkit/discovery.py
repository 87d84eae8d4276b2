"""Find indexes (either store: `indexer.find_indexes`) and trained model folders below a root,
without loading them."""

from __future__ import annotations

from pathlib import Path

MAX_DEPTH = 4  # how far below a root to look; keeps a huge root from stalling a page


def _walk(root: Path, depth: int = 0):
    if depth > MAX_DEPTH or not root.is_dir():
        return
    yield root
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return
    for child in children:
        yield from _walk(child, depth + 1)


def find_indexes(root: Path) -> list[Path]:
    """Index folders below `root`, and files `NAME.milvus` there, each naming a Milvus index by
    its address (`indexer.find_indexes`)."""
    from indexer import find_indexes as found

    return [f.path for f in found(root, MAX_DEPTH)]


def index_stamp(path: Path):
    """What changes when the index at `path` (a folder, or a `NAME.milvus` pointer) has a new
    version to open: `indexer.locate(path).stamp()`, the same test the service makes."""
    from indexer import locate

    return locate(path).stamp()


def default_position(names: list[str], default: str) -> int:
    """Where a list of index names opens: on the default index when it is there, else the first
    (alphabetical order alone put any index named before `bbc-news` in front of it)."""
    return names.index(default) if default in names else 0


def is_model_folder(folder: Path) -> bool:
    """A sentence-transformers folder (`modules.json`) or a transformers one (`config.json`)."""
    return (folder / "modules.json").is_file() or (
        (folder / "config.json").is_file() and (folder / "tokenizer_config.json").is_file()
    )


def find_trained_models(root: Path) -> list[Path]:
    """Model folders below `root`; a run folder's `model/` or the run folder itself.

    A folder that is a model is not searched further (its sub-modules are not models), and a
    run's training checkpoints (`checkpoints/…/checkpoint-N`) are not models to offer."""
    found: list[Path] = []
    for folder in _walk(root):
        if any(p in found for p in folder.parents) or _is_checkpoint(folder, root):
            continue
        if is_model_folder(folder):
            found.append(folder)
    return found


def _is_checkpoint(folder: Path, root: Path) -> bool:
    parts = folder.relative_to(root).parts
    return "checkpoints" in parts or any(p.startswith("checkpoint-") for p in parts)


def label(path: Path, root: Path) -> str:
    """`path` relative to `root` for display, or the full path where it is not below it."""
    try:
        return str(path.relative_to(root)) or path.name
    except ValueError:
        return str(path)
