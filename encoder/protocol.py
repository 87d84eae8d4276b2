"""`EncoderLike`: what the feature modules (inspection, trajectories, explanations, fill-mask)
need of an encoder. They depend on this small protocol, not on `Encoder`, which forwards to them:
the class imports its features, the features never import the class."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer



class EncoderLike(Protocol):
    name: str
    path: str
    backend: str  # what `encode` runs on (backends.BACKENDS)

    @property
    def model(self) -> SentenceTransformer: ...  # the torch model (gradients, attention)

    @property
    def transformer(self) -> torch.nn.Module: ...

    @property
    def tokenizer(self) -> Any: ...

    @property
    def max_length(self) -> int: ...

    @property
    def fingerprint(self) -> str: ...

    def prompt_prefix(self, prompt: str | None) -> str: ...

    def encode(self, texts: str | Sequence[str], **options: Any) -> np.ndarray: ...

    def eager_attention(self) -> AbstractContextManager[torch.nn.Module]: ...

    def inspect(self, text: str, text_pair: str | None = None) -> Any: ...  # an Inspection
