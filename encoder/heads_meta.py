"""Where an encoder's pretraining heads are kept and whether complete ones are there: file names,
folders and the JSON description only, without torch (`Encoder.info`, pages that list models and
jobs). Loading, saving and training the heads: `encoder.heads`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common import bertscope_home

from .registry import BUNDLED

if TYPE_CHECKING:
    from .protocol import EncoderLike

HEADS_FILE = "mlm_heads.safetensors"
HEADS_META = "mlm_heads.json"
HEADS_FORMAT = 1


def bundled_heads_dir(name: str) -> Path:
    """Where the heads trained for a bundled model are cached."""
    return bertscope_home() / "heads" / name


def heads_folder(encoder: EncoderLike) -> Path:
    """Where this encoder's heads are (or would be) kept."""
    own = Path(encoder.path)
    if (own / HEADS_META).is_file() or encoder.name not in BUNDLED:
        return own
    return bundled_heads_dir(encoder.name)


def read_meta(folder: Path) -> dict[str, Any] | None:
    """The heads' description in `folder`, or None where there are no complete heads."""
    try:
        meta = json.loads((folder / HEADS_META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or not (folder / HEADS_FILE).is_file():
        return None
    if meta.get("format") != HEADS_FORMAT:
        raise ValueError(f"{folder / HEADS_META}: unknown heads format {meta.get('format')!r}")
    return meta


def has_heads(folder: Path) -> bool:
    """True where `folder` holds complete heads of a format this version reads."""
    try:
        return read_meta(folder) is not None
    except ValueError:
        return False
