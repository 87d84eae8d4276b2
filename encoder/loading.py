"""`load_encoder`: a bundled name, a local folder, or a hub id → `Encoder`, on a backend."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from common import check_path

from .backends import AUTO, check_backend
from .encoder import Encoder
from .errors import EncoderNotFoundError
from .registry import BUNDLED

if TYPE_CHECKING:  # imported where a torch model is loaded: an export encodes without it
    from sentence_transformers import SentenceTransformer

log = logging.getLogger("bertscope.encoder")


def load_encoder(name_or_path: str | Path, device: str = "cpu", backend: str = AUTO) -> Encoder:
    """Load a bundled encoder (`minilm`, `e5-multilingual`), any local sentence-transformers or
    transformers folder, or a hub id (needs a network).

    `backend` is what encodes (see backends.py): `auto` (the fastest export that passed the
    fidelity gate on this CPU, exported on first use; torch where none does, or on a GPU
    `device`), `torch`, `onnx`, `onnx-int8`, `openvino` or `openvino-int8`. An explicit backend
    loads even below the gate (`enc.fidelity` shows it) and raises `BackendError` if it cannot
    be made. Attention, gradients and training use the torch model, loaded when first needed.
    """
    backend = check_backend(backend)
    name, path, languages, local = _resolve(name_or_path)
    if backend == "torch" or (backend == AUTO and device != "cpu"):
        model = _load_torch(path, device, local)
        return Encoder(model, name=name, path=path, languages=languages or _languages(model))
    from .fast_loading import load_fast

    return load_fast(name=name, path=path, languages=languages, local=local, backend=backend,
                     load_torch=lambda: _load_torch(path, device, local))


def _resolve(name_or_path: str | Path) -> tuple[str, str, tuple[str, ...] | None, bool]:
    """(name, path, languages if known, whether local) of what the user named; raises for a
    bad name with the fix."""
    if not (isinstance(name_or_path, str) and name_or_path in BUNDLED):
        check_path(name_or_path, "model", f"a bundled name ({', '.join(BUNDLED)}), a model "
                   "folder or a hub id")  # None, numbers, "": a TypeError / ValueError
    key = str(name_or_path)
    if key in BUNDLED:
        spec = BUNDLED[key]
        return key, str(spec.resolve()), spec.languages, True
    path = Path(key).expanduser()
    if path.exists():
        if not path.is_dir():
            raise EncoderNotFoundError(f"{path} is a file; pass a model folder or a bundled name")
        if not any((path / name).is_file() for name in ("modules.json", "config.json")):
            raise EncoderNotFoundError(
                f"{path} is not a model folder (no modules.json or config.json in it); pass a "
                f"sentence-transformers or transformers model folder, or a bundled name "
                f"({', '.join(BUNDLED)})")
        return path.name, str(path.resolve()), None, True
    if _is_path(key):  # "./runs/x", "/models/y", "runs/a/model": never a hub id (org/name)
        raise EncoderNotFoundError(
            f"no model folder at {key}: it does not exist; pass a model folder that exists, a "
            f"bundled name ({', '.join(BUNDLED)}) or a hub id (org/name)")
    return key, key, None, False


def _load_torch(path: str, device: str, local: bool) -> SentenceTransformer:
    from sentence_transformers import SentenceTransformer

    if not local:
        return _load_from_hub(path, device)
    try:
        return SentenceTransformer(path, device=device, local_files_only=True)
    except (OSError, ValueError) as exc:  # no config.json / weights / tokenizer in it
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise EncoderNotFoundError(
            f"{path} is not a loadable model folder ({first}); pass a sentence-transformers "
            f"or transformers model folder, or a bundled name ({', '.join(BUNDLED)})"
        ) from exc


def _is_path(key: str) -> bool:
    return key.startswith(("/", ".", "~")) or key.count("/") > 1 or "\\" in key


def _load_from_hub(model_id: str, device: str) -> SentenceTransformer:
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(model_id, device=device)
    except Exception as exc:  # offline, unknown id, auth: all end the same way for a user
        raise EncoderNotFoundError(
            f"Cannot load encoder {model_id!r}: it is not a bundled model "
            f"({', '.join(BUNDLED)}), not a local folder, and could not be fetched from the "
            f"model hub ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}). "
            "Offline, use a bundled model or a local folder."
        ) from exc


def _languages(model: SentenceTransformer) -> tuple[str, ...]:
    from .export_build import st_languages

    return st_languages(model)



