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
