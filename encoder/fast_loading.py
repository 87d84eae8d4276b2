"""`load_fast`: an `Encoder` that encodes with an export (ONNX Runtime / OpenVINO), chosen by
`auto` or named, exported on first use; the torch model stays unloaded until something needs it.

`auto` walks `backends.auto_order()`: it exports only the candidate it tries, skips one whose
export failed the fidelity gate or cannot be made or loaded, and ends at torch; when it skips,
it says why in one log line (and in `enc.backend_note`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .auto_plan import below_gate
from .backends import AUTO, auto_order
from .encoder import Encoder
from .errors import BackendError
from .exports import (
    Export,
    ensure_export,
    find_export,
    known_fingerprint,
    remember_fingerprint,
    source_key,
)
from .fingerprint import model_fingerprint

if TYPE_CHECKING:  # an export encodes without it (seconds to import)
    from sentence_transformers import SentenceTransformer

log = logging.getLogger("bertscope.encoder")


class _Torch:
    """The torch model and its fingerprint, loaded at most once, and only when needed."""

    def __init__(self, load: Callable[[], SentenceTransformer], path: str, local: bool) -> None:
        self._load = load
        self.path = path
        self.key = source_key(Path(path)) if local else None
        self.fingerprint = known_fingerprint(self.key)
        self.model: SentenceTransformer | None = None

    def get(self) -> SentenceTransformer:
        if self.model is None:
            self.model = self._load()
            self.fingerprint = model_fingerprint(self.model)
            remember_fingerprint(self.key, self.fingerprint, self.path)
        return self.model


def load_fast(*, name: str, path: str, languages: tuple[str, ...] | None, local: bool,
              backend: str, load_torch: Callable[[], SentenceTransformer]) -> Encoder:
    torch = _Torch(load_torch, path, local)
    candidates = auto_order() if backend == AUTO else (backend,)
    skipped: list[str] = []
    for candidate in candidates:
        if candidate == "torch":
            model = torch.get()
            note = _note(name, skipped, "torch")
            return Encoder(model, name=name, path=path, backend_note=note,
                           languages=languages or _languages(model))
        export = _export(torch, candidate, name, languages, skipped, explicit=backend != AUTO)
        if export is None:
            continue
        try:
            from .runtime import FastModel

            fast = FastModel(export.folder, candidate)
        except Exception as exc:  # a runtime that is missing or refuses the graph
            if backend != AUTO:
                raise BackendError(f"{name}: the {candidate} export at {export.folder} cannot "
                                   f"be loaded ({_why(exc)}); use backend='torch'") from exc
            skipped.append(f"{candidate} cannot be loaded ({_why(exc)})")
            continue
        return Encoder(fast, name=name, path=path, languages=languages or fast_languages(fast),
                       backend=candidate, fidelity=export.fidelity,
                       backend_note=_note(name, skipped, candidate),
                       fingerprint=torch.fingerprint, torch_model=torch.model,
                       load_torch=load_torch)
    raise AssertionError("auto_order() ends at torch")  # pragma: no cover


def _export(torch: _Torch, backend: str, name: str, languages: tuple[str, ...] | None,
            skipped: list[str], *, explicit: bool) -> Export | None:
    """The verified export for `backend` (made now if needed), or None (reason in `skipped`)."""
    from .export_build import is_multilingual

    found = find_export(torch.fingerprint, backend) if torch.fingerprint else None
    if found is None:
        model = torch.get()  # needed to export; EncoderNotFoundError for a bad model propagates
        found = find_export(torch.fingerprint, backend)
        if found is None:
            langs = languages or _languages(model)
            try:
                found = ensure_export(model, torch.fingerprint, backend, name=name,
                                      multilingual=is_multilingual(model, langs))
            except Exception as exc:  # a runtime missing, a graph it cannot export
                if explicit:
                    raise BackendError(f"{name}: cannot export to {backend} ({_why(exc)}); "
                                       "use backend='torch'") from exc
                skipped.append(f"{backend} could not be exported ({_why(exc)})")
                return None
    if not explicit and not found.passed:
        skipped.append(below_gate(backend, found.fidelity))
        return None
    return found


def _note(name: str, skipped: list[str], chosen: str) -> str | None:
    if not skipped:
        return None
    note = f"auto runs {chosen}: " + "; ".join(skipped)
    log.warning("%s: %s", name, note)
    return note


def _why(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _languages(model: SentenceTransformer) -> tuple[str, ...]:
    from .export_build import st_languages

    return st_languages(model)


def fast_languages(fast) -> tuple[str, ...]:
    return tuple(getattr(fast, "languages", None) or ("unknown",))
