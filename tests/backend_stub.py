"""Stand-ins for fast backends in tests of what lies above `encoder/`: a torch encoder labelled
with another backend and the fidelity its export would have measured. Its vectors are torch's;
tests use it for bookkeeping (manifests, refusals, pass-through, what a page shows), never to
judge an export (tests/encoder/test_backends.py does that)."""

from __future__ import annotations

import copy

GOOD, BAD = 0.995, 0.95  # a fidelity that passes encoder.FIDELITY_GATE (0.99), one that fails it


class _TorchEngine:
    """The torch SentenceTransformer standing in for an export's engine (which also takes the
    token `lengths` the encoder hands it)."""

    def __init__(self, model) -> None:
        self._model = model

    def encode(self, *args, lengths=None, **kwargs):
        return self._model.encode(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._model, name)


def labelled(enc, backend: str, fidelity: float | None, note: str | None = None):
    """A copy of `enc` (an `Encoder` on torch) that says it runs `backend` with `fidelity`."""
    assert enc.backend == "torch", "label a torch encoder (load_encoder(..., backend='torch'))"
    enc.info, enc.fingerprint  # noqa: B018 - cached on `enc` from torch, so the copy keeps them
    fake = copy.copy(enc)
    fake.backend, fake.fidelity, fake.backend_note = backend, fidelity, note
    if backend != "torch":
        fake.encoder_model = _TorchEngine(enc.encoder_model)
    return fake


def export_on_disk(model_folder, backend: str, fidelity: float, fingerprint: str = "f" * 32):
    """What a past `auto` load leaves in `$BERTSCOPE_HOME` for `model_folder`: its remembered
    fingerprint and a verified (stand-in) export for `backend` with `fidelity`."""
    import json

    from common import file_checksum
    from encoder.exports import EXPORT_FORMAT, META, export_folder, remember_fingerprint, source_key

    remember_fingerprint(source_key(model_folder), fingerprint, str(model_folder))
    folder = export_folder(fingerprint, backend)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.onnx").write_bytes(b"stand-in graph")
    meta = {"format": EXPORT_FORMAT, "backend": backend, "fingerprint": fingerprint,
            "fidelity": {"min_cosine": fidelity, "mean_cosine": fidelity, "texts": 1},
            "files": {"model.onnx": file_checksum(folder / "model.onnx")}}
    (folder / META).write_text(json.dumps(meta), encoding="utf-8")
    return folder
