"""`load_encoder`: a bundled name, a local folder, or a hub id → `Encoder`."""

from __future__ import annotations

import logging
from pathlib import Path

from sentence_transformers import SentenceTransformer

from common import check_path

from .backends import AUTO, check_backend
from .encoder import Encoder
from .errors import EncoderNotFoundError
from .registry import BUNDLED

log = logging.getLogger("bertscope.encoder")


def load_encoder(name_or_path: str | Path, device: str = "cpu", backend: str = AUTO) -> Encoder:
    """Load a bundled encoder (`minilm`, `e5-multilingual`), any local sentence-transformers or
    transformers folder, or a hub id (needs a network).

    `backend`: what encodes (see backends.py): `auto` (the fastest that passed the fidelity
    gate), `torch`, `onnx`, `onnx-int8`, `openvino` or `openvino-int8`.
    """
    backend = check_backend(backend)
    if backend not in (AUTO, "torch"):
        raise NotImplementedError(f"backend {backend!r} is not built yet")
    if not (isinstance(name_or_path, str) and name_or_path in BUNDLED):
        check_path(name_or_path, "model", f"a bundled name ({', '.join(BUNDLED)}), a model "
                   "folder or a hub id")  # None, numbers, "": a TypeError / ValueError
    key = str(name_or_path)
    if key in BUNDLED:
        spec = BUNDLED[key]
        path = spec.resolve()
        model = SentenceTransformer(str(path), device=device, local_files_only=True)
        return Encoder(model, name=key, path=str(path), languages=spec.languages)
    path = Path(key).expanduser()
    if path.exists():
        if not path.is_dir():
            raise EncoderNotFoundError(f"{path} is a file; pass a model folder or a bundled name")
        if not any((path / name).is_file() for name in ("modules.json", "config.json")):
            raise EncoderNotFoundError(
                f"{path} is not a model folder (no modules.json or config.json in it); pass a "
                f"sentence-transformers or transformers model folder, or a bundled name "
                f"({', '.join(BUNDLED)})")
        try:
            model = SentenceTransformer(str(path.resolve()), device=device, local_files_only=True)
        except (OSError, ValueError) as exc:  # no config.json / weights / tokenizer in it
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            raise EncoderNotFoundError(
                f"{path} is not a loadable model folder ({first}); pass a sentence-transformers "
                f"or transformers model folder, or a bundled name ({', '.join(BUNDLED)})"
            ) from exc
        return Encoder(model, name=path.name, path=str(path.resolve()), languages=_languages(model))
    if _is_path(key):  # "./runs/x", "/models/y", "runs/a/model": never a hub id (org/name)
        raise EncoderNotFoundError(
            f"no model folder at {key}: it does not exist; pass a model folder that exists, a "
            f"bundled name ({', '.join(BUNDLED)}) or a hub id (org/name)")
    return _load_from_hub(key, device)


def _is_path(key: str) -> bool:
    return key.startswith(("/", ".", "~")) or key.count("/") > 1 or "\\" in key


def _load_from_hub(model_id: str, device: str) -> Encoder:
    try:
        model = SentenceTransformer(model_id, device=device)
    except Exception as exc:  # offline, unknown id, auth: all end the same way for a user
        raise EncoderNotFoundError(
            f"Cannot load encoder {model_id!r}: it is not a bundled model "
            f"({', '.join(BUNDLED)}), not a local folder, and could not be fetched from the "
            f"model hub ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}). "
            "Offline, use a bundled model or a local folder."
        ) from exc
    return Encoder(model, name=model_id, path=model_id, languages=_languages(model))


def _languages(model: SentenceTransformer) -> tuple[str, ...]:
    data = getattr(model, "model_card_data", None)
    language = getattr(data, "language", None)
    if isinstance(language, str):
        return (language,)
    if language:
        return tuple(language)
    return ("unknown",)
