"""Encoding backends: their names, the fidelity gate, which one `auto` picks, and whether an
index built on one backend may be queried on another.

`torch` is the sentence-transformers model itself; the others are exports of the same weights
(see exports.py) run by ONNX Runtime or OpenVINO, fp32 or int8. Attention maps, gradients and
training always use the torch model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class BackendSpec:
    """One encoding backend: the runtime that runs it, whether its weights are int8, its graph
    file in an export folder (None: torch, no export) and the typical seconds an export of the
    bundled minilm takes (what the export message announces)."""

    name: str
    runtime: str  # "torch", "onnxruntime" or "openvino"
    int8: bool
    graph: str | None
    typical_export_s: int | None  # minilm on 2 cores: bench/results/encode-fused.md, encode.md,
    # export-int8.md (openvino-int8: the build plus the fidelity check)


# The one table of backends: every other list of names or files is read from it.
SPECS: dict[str, BackendSpec] = {b.name: b for b in (
    BackendSpec("torch", "torch", False, None, None),
    BackendSpec("onnx", "onnxruntime", False, "model.onnx", 30),
    BackendSpec("onnx-int8", "onnxruntime", True, "model_int8.onnx", 20),
    BackendSpec("openvino", "openvino", False, "openvino_model.xml", 10),
    BackendSpec("openvino-int8", "openvino", True, "openvino_model_int8.xml", 20),
)}
BACKENDS: tuple[str, ...] = tuple(SPECS)
AUTO = "auto"
FIDELITY_GATE = 0.99  # min cosine to torch fp32 on the calibration texts, measured at export


def check_backend(name: object, *, allow_auto: bool = True) -> str:
    """`name` if it names a backend (or `auto` where allowed); else ValueError naming them."""
    choices = ((AUTO,) if allow_auto else ()) + BACKENDS
    if isinstance(name, str) and name in choices:
        return name
    shown = repr(name) if isinstance(name, str) else f"{name!r} ({type(name).__name__})"
    hint = ""
    if isinstance(name, str) and name.strip().lower().replace("_", "-") in choices:
        hint = f" (did you mean {name.strip().lower().replace('_', '-')!r}?)"
    raise ValueError(f"Invalid backend {shown}{hint}. Valid: {', '.join(choices)}")


# -- auto ----------------------------------------------------------------------------------------
INT8_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8"})


CPU_FLAGS_ENV = "BERTSCOPE_CPU_FLAGS"


def cpu_flags(cpuinfo: str | Path | None = None) -> frozenset[str]:
    """The CPU's feature flags (Linux `/proc/cpuinfo`); empty where they cannot be read.

    `$BERTSCOPE_CPU_FLAGS` (space- or comma-separated, e.g. "avx2") replaces what the CPU
    reports when no file is named: `auto` then chooses as on such a CPU (the test suite pins it
    so that its results do not depend on the machine it runs on)."""
    if cpuinfo is None:
        pinned = os.environ.get(CPU_FLAGS_ENV)
        if pinned is not None:
            return frozenset(pinned.replace(",", " ").split())
        cpuinfo = "/proc/cpuinfo"
    try:
        text = Path(cpuinfo).read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):  # x86 / ARM
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def auto_order(flags: frozenset[str] | None = None) -> tuple[str, ...]:
    """The backends `auto` tries, fastest first; it exports only the first it needs, falls to the
    next when an export fails the gate or cannot load, and ends at torch.

    On VNNI / AMX CPUs int8 goes first (sentence-transformers' published benchmark puts
    openvino-int8, then onnx-int8, well ahead of torch). On AVX2 only, onnx-int8 is the fastest,
    but its min cosine to torch fails the gate for both bundled models, so trying it first would
    only cost each a wasted export; fused fp32 onnx goes first (bench/results/encode-fused.md:
    each backend's speed beside sentence-transformers torch fp32, and its cosine to it).
    """
    flags = cpu_flags() if flags is None else flags
    if flags & INT8_FLAGS:
        return ("openvino-int8", "onnx-int8", "onnx", "torch")
    return ("onnx", "openvino", "torch")


# -- indexes -------------------------------------------------------------------------------------
class _HasBackend(Protocol):
    backend: str
    fidelity: float | None


def passed_gate(backend: str, fidelity: float | None) -> bool:
    """torch is the reference (always passes); an export passes when its min cosine does."""
    return backend == "torch" or (fidelity is not None and fidelity >= FIDELITY_GATE)


def query_backend_error(index_backend: str, index_fidelity: float | None,
                        enc: _HasBackend) -> str | None:
    """None when an index built with `index_backend` can be queried with `enc` (the same backend,
    or both within the fidelity gate of torch fp32); else a one-line message naming the fix."""
    if index_backend not in BACKENDS:
        return (f"this index records an unknown encoding backend {index_backend!r} (known: "
                f"{', '.join(BACKENDS)}); rebuild the index with this version")
    if index_backend == enc.backend:
        return None
    if passed_gate(index_backend, index_fidelity) and passed_gate(enc.backend, enc.fidelity):
        return None
    built, querying = (fidelity_text(index_backend, index_fidelity),
                       fidelity_text(enc.backend, enc.fidelity))
    return (f"this index's vectors were made by the {index_backend!r} backend "
            f"(fidelity {built}) but the query encoder runs "
            f"{enc.backend!r} (fidelity {querying}); vectors from both "
            f"are comparable only when both pass the {FIDELITY_GATE} gate: query with "
            f"--backend {index_backend} (load_encoder(..., backend={index_backend!r}))")


def fidelity_text(backend: str, fidelity: float | None) -> str:
    """`1.0 (reference)` for torch, the measured min cosine otherwise, `unknown` where none."""
    if backend == "torch":
        return "1.0 (reference)"
    return "unknown" if fidelity is None else f"{fidelity:.4f}"


MINILM_SHAPE = (6, 384)  # layers, width: the model SPECS' typical export times were measured on


def export_estimate_s(backend: str, layers: int, width: int) -> float | None:
    """Seconds an export of a `layers` x `width` BERT to `backend` takes on a 2-core machine:
    minilm's measured time scaled by the encoder's compute (layers x width²); None for torch."""
    typical = SPECS[backend].typical_export_s
    if typical is None:
        return None
    return typical * layers * width**2 / (MINILM_SHAPE[0] * MINILM_SHAPE[1] ** 2)
