"""Which encoder an index needs, and on which backend: what the manifest records about the model
that made its vectors, loading that model, and checking one offered in its place (the same
weights, and a backend whose vectors agree with the index's within the fidelity gate)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from .errors import BackendMismatchError, CorruptIndexError, EncoderMismatchError
from .validation import check_encoder

log = logging.getLogger("bertscope.indexer")
LEGACY_BACKEND = "torch"  # manifests written before backends were recorded


def encoder_fields(enc) -> dict:
    """The manifest's `encoder` entry for `enc`: identity (name, how to load it, fingerprint,
    info) and the backend that made the vectors, with its fidelity measured at export."""
    from encoder import bundled_names

    fields = {"name": enc.name, "load_as": enc.name if enc.name in bundled_names()
              else str(enc.path), "fingerprint": enc.fingerprint, "info": enc.info.to_dict(),
              "backend": enc.backend, "fidelity": enc.fidelity}
    if enc.backend_note:
        fields["backend_note"] = enc.backend_note
    return fields


def index_backend(manifest: dict, folder: Path | str = "") -> str:
    """The backend that made the index's vectors (`torch` for manifests that predate them)."""
    from encoder import BACKENDS

    backend = manifest["encoder"].get("backend", LEGACY_BACKEND)
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise CorruptIndexError(
            f"{Path(folder) / 'manifest.json'}: encoder.backend is {backend!r}, not one of "
            f"{', '.join(BACKENDS)}: the manifest is damaged; rebuild the index")
    return backend


def index_fidelity(manifest: dict) -> float | None:
    """The index backend's measured fidelity (min cosine to torch fp32); None where unknown."""
    value = manifest["encoder"].get("fidelity")
    if "backend" not in manifest["encoder"]:
        return 1.0  # a legacy index: made by torch itself
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def check_backend_arg(backend: Any, *, none_ok: bool = True) -> str | None:
    """A `backend=` argument: None (where allowed: the index's own), `auto` or a backend name;
    anything else is a ValueError naming the choices."""
    from encoder import check_backend

    if backend is None and none_ok:
        return None
    return check_backend(backend)


def check_open_args(encoder: Any, backend: Any) -> str | None:
    """`SemanticIndex.open`'s `encoder` (an `Encoder` or None) and `backend` (None or a name),
    not both; returns the backend."""
    check_encoder(encoder)
    backend = check_backend_arg(backend)
    if encoder is not None and backend is not None:
        raise ValueError(f"give encoder= or backend={backend!r}, not both: an encoder runs on "
                         f"the backend it was loaded with ({encoder.backend!r})")
    return backend


def load_index_encoder(manifest: dict, folder: Path | str, backend: str | None = None):
    """The index's model, loaded on `backend` (default: the index's own), checked to fit. Where
    the index's own backend cannot run here (`BackendError`: not installed, export failed), the
    torch model stands in, saying so, if the index's vectors are within the fidelity gate."""
    from encoder import load_encoder
    from encoder.errors import BackendError

    wanted = backend or index_backend(manifest, folder)
    try:
        enc = load_encoder(manifest["encoder"]["load_as"], backend=wanted)
    except BackendError as exc:
        if backend is not None or wanted == "torch":
            raise  # asked for by name: say why it cannot run
        log.warning("%s: its backend %r cannot run here (%s); querying with torch", folder,
                    wanted, str(exc).splitlines()[0][:200])
        enc = load_encoder(manifest["encoder"]["load_as"], backend="torch")
    check_fits(manifest, folder, enc)  # torch on vectors beyond the gate: refused here
    return enc


def check_fits(manifest: dict, folder: Path | str, enc) -> None:
    """Raise `EncoderMismatchError` for other weights, `BackendMismatchError` for a backend
    whose query vectors would differ from the index's beyond the fidelity gate."""
    want = manifest["encoder"]
    if enc.fingerprint != want["fingerprint"]:
        raise EncoderMismatchError(
            f"this index needs encoder {want['name']!r} (fingerprint "
            f"{want['fingerprint'][:12]}), not {enc.name!r} ({enc.fingerprint[:12]}): "
            f"open it with encoder=load_encoder({want['load_as']!r}), or rebuild the index "
            f"with {enc.name!r}")
    from encoder import query_backend_error

    built = index_backend(manifest, folder)
    problem = query_backend_error(built, index_fidelity(manifest), enc)
    if problem:
        raise BackendMismatchError(f"{folder}: {problem}")
