"""The export cache: `$BERTSCOPE_HOME/exports/<model fingerprint>/<backend>/`.

Each export is built once, on first use, into a hidden folder beside its place and renamed
there under a file lock, so concurrent first uses neither collide nor see half a folder. Its
`meta.json` records the backend, the versions that made it, a checksum of every file and the
fidelity measured when it was made (min / mean cosine to torch fp32 on shipped texts). A
missing, partial or damaged export fails the check at load and is rebuilt, with one message.

The fingerprint hashes the torch weights; so that an encode-only process need not load them,
`exports/sources/` remembers, per model folder content (an xxh3 of its files), the fingerprint
last computed for it.
"""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import xxhash

from common import bertscope_home, write_json_atomic
from common.publish import build_once, file_checksums, files_problem

from .backends import FIDELITY_GATE, export_estimate_s, passed_gate

log = logging.getLogger("bertscope.encoder")

EXPORT_FORMAT = 2  # 2: onnx and onnx-int8 are fused (ONNX Runtime's transformer optimizer)
META = "meta.json"
PACKAGES = ("torch", "transformers", "sentence-transformers", "onnx", "onnxruntime", "openvino",
            "nncf")
SKIP_DIRS = {"onnx", "openvino", "__pycache__"}  # other tools' exports inside a model folder


@dataclass(frozen=True)
class Export:
    folder: Path
    backend: str
    fidelity: float  # min cosine to torch fp32 at export
    mean_cosine: float
    meta: dict

    @property
    def passed(self) -> bool:
        return passed_gate(self.backend, self.fidelity)


def export_folder(fingerprint: str, backend: str) -> Path:
    return bertscope_home("exports", create=False) / fingerprint / backend


def check_export(folder: Path, fingerprint: str, backend: str) -> tuple[Export | None, str]:
    """(the export, "") when `folder` holds a complete, undamaged export; else (None, why)."""
    try:
        meta = json.loads((folder / META).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "missing" if not folder.exists() else f"no {META}"
    except (OSError, ValueError) as exc:
        return None, f"{META} unreadable ({type(exc).__name__})"
    if meta.get("format") != EXPORT_FORMAT or meta.get("backend") != backend:
        return None, (f"made by another format or backend ({meta.get('format')}, "
                      f"{meta.get('backend')})")
    if meta.get("fingerprint") != fingerprint:
        return None, "made for other weights"
    damage = files_problem(folder, meta.get("files") or {}, leave_out=[META])
    if damage:
        return None, damage
    fidelity = meta.get("fidelity") or {}
    try:
        return Export(folder, backend, float(fidelity["min_cosine"]),
                      float(fidelity["mean_cosine"]), meta), ""
    except (KeyError, TypeError, ValueError):
        return None, "no fidelity recorded"


def find_export(fingerprint: str, backend: str) -> Export | None:
    return check_export(export_folder(fingerprint, backend), fingerprint, backend)[0]


def ensure_export(model, fingerprint: str, backend: str, *, name: str,
                  multilingual: bool) -> Export:
    """A verified export of `model` (the torch SentenceTransformer) for `backend`, built now if
    absent or damaged."""
    from .export_build import build

    folder = export_folder(fingerprint, backend)

    def problem() -> str | None:
        return check_export(folder, fingerprint, backend)[1] or None

    def stale(why: str) -> None:
        log.warning("%s: the %s export at %s is unusable (%s); rebuilding it", name, backend,
                    folder, why)

    def make(staging: Path) -> None:
        config = model[0].auto_model.config
        estimate = export_estimate_s(backend, config.num_hidden_layers, config.hidden_size)
        print(f"Exporting {name} to {backend} (once per model; about {estimate or 0:.0f} s on "
              f"2 cores) into {folder} ...", file=sys.stderr)
        made = build(model, backend, staging, multilingual=multilingual)
        meta = {
            "format": EXPORT_FORMAT,
            "backend": backend,
            "fingerprint": fingerprint,
            "model": name,
            "gate": FIDELITY_GATE,
            "passed": passed_gate(backend, made["fidelity"]["min_cosine"]),
            **made,
            "versions": _versions(),
            "files": file_checksums(staging),
        }
        write_json_atomic(staging / META, meta)

    build_once(folder, problem, make, on_stale=stale)
    found, why = check_export(folder, fingerprint, backend)
    if found is None:
        raise RuntimeError(f"the {backend} export at {folder} did not verify ({why}); delete it "
                           "and retry")
    fid = found.meta["fidelity"]
    log.info("%s: %s export made in %.0f s, min cosine %.4f (mean %.4f) to torch fp32 on %d "
             "texts", name, backend, found.meta["export_s"], fid["min_cosine"],
             fid["mean_cosine"], fid["texts"])
    return found


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for package in PACKAGES:
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = None
    return out


# -- which fingerprint a model folder has, without loading its weights --------------------------
def source_key(folder: Path) -> str | None:
    """A checksum of a model folder's files (paths and contents; exports and hidden files inside
    it left out), or None for what is not a local folder."""
    folder = Path(folder)
    if not folder.is_dir():
        return None

    def keep(rel: str) -> bool:
        parts = rel.split("/")
        return parts[0] not in SKIP_DIRS and not any(p.startswith(".") for p in parts)

    sums = file_checksums(folder, keep=keep)
    return xxhash.xxh3_128(json.dumps(sums, sort_keys=True).encode()).hexdigest()


def known_fingerprint(key: str | None) -> str | None:
    if key is None:
        return None
    try:
        return str(json.loads(_source_file(key).read_text(encoding="utf-8"))["fingerprint"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remember_fingerprint(key: str | None, fingerprint: str, path: str) -> None:
    if key is not None:
        bertscope_home("exports", "sources")
        write_json_atomic(_source_file(key), {"fingerprint": fingerprint, "path": path})


def _source_file(key: str) -> Path:
    return bertscope_home("exports", "sources", create=False) / f"{key}.json"
