"""What `auto` would encode a model with, read from what is on disk (the fingerprint remembered
for its folder, the exports' metadata), without loading weights or a runtime: for a model not
loaded yet (the app's Models page). It walks `auto_order()` as `fast_loading.load_fast` does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .backends import FIDELITY_GATE, auto_order, export_estimate_s
from .exports import find_export, known_fingerprint, source_key
from .registry import BUNDLED


@dataclass(frozen=True)
class AutoPlan:
    """`backend`: what `auto` would run (None: not exported yet, so not known until the model is
    loaded); `fidelity` its recorded min cosine (torch: None); `note`: why, in words (the
    exports skipped, or what is missing)."""

    backend: str | None
    fidelity: float | None = None
    note: str = ""


def auto_plan(name_or_path: str | Path, flags: frozenset[str] | None = None) -> AutoPlan:
    """The backend `auto` would pick for a bundled name or a local model folder on this CPU
    (`flags`: its feature flags, default read from it), judged from the export metadata on
    disk. Nothing is exported, converted or loaded; the exports' checksums are verified."""
    folder = _folder(name_or_path)
    fingerprint = known_fingerprint(source_key(folder)) if folder else None
    if fingerprint is None:
        return AutoPlan(None, note="not loaded here yet: its weights' fingerprint is unknown")
    skipped: list[str] = []
    for candidate in auto_order(flags):
        if candidate == "torch":
            return AutoPlan("torch", None, "; ".join(skipped))
        export = find_export(fingerprint, candidate)
        if export is None:
            return AutoPlan(None, note="; ".join([*skipped,
                                                  f"auto exports {candidate} on first use"]))
        if export.passed:
            return AutoPlan(candidate, export.fidelity, "; ".join(skipped))
        skipped.append(below_gate(candidate, export.fidelity))
    raise AssertionError("auto_order() ends at torch")  # pragma: no cover


def below_gate(backend: str, fidelity: float) -> str:
    """Why `auto` skipped an export (`fast_loading` says the same when it loads)."""
    return f"the {backend} export failed the fidelity gate (min cosine {fidelity:.4f} < " \
        f"{FIDELITY_GATE})"


def _folder(name_or_path: str | Path) -> Path | None:
    """The model's local folder if it is on disk now (a bundled one not converted yet: None)."""
    if isinstance(name_or_path, str) and name_or_path in BUNDLED:
        return BUNDLED[name_or_path].on_disk()
    path = Path(name_or_path).expanduser()
    return path if path.is_dir() else None


def first_use_export(name_or_path: str | Path,
                     flags: frozenset[str] | None = None) -> tuple[str, float] | None:
    """The export `auto` makes when the model is first loaded here, with its estimated seconds
    (None: nothing to export — one exists, `auto` runs torch, or the model is not on disk yet)."""
    plan = auto_plan(name_or_path, flags)
    folder = _folder(name_or_path)
    if plan.backend is not None or folder is None:
        return None
    backend = next(b for b in auto_order(flags) if b == "torch" or not _exported(folder, b))
    config = _config(folder)
    if backend == "torch" or config is None:
        return None
    seconds = export_estimate_s(backend, config[0], config[1])
    return (backend, seconds) if seconds is not None else None


def _exported(folder: Path, backend: str) -> bool:
    fingerprint = known_fingerprint(source_key(folder))
    return fingerprint is not None and find_export(fingerprint, backend) is not None


def _config(folder: Path) -> tuple[int, int] | None:
    """(layers, width) from the model folder's config.json, if it says."""
    import json

    for path in (folder / "config.json", *folder.glob("*/config.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return int(data["num_hidden_layers"]), int(data["hidden_size"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None

