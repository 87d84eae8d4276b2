"""`embed_passages`: chunk texts to vectors a few batches at a time, longest first (batches of
like lengths pad less), reporting the count done after each piece: a build or an add of one
huge document moves its progress bar instead of looking hung."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def embed_passages(encoder, texts: Sequence[str], batch_size: int,
                   done: Callable[[int], None] | None = None) -> np.ndarray:
    """(len(texts), dim) float32 unit rows, in the order of `texts`; `done(n)` after each piece
    of 4 batches, with n the texts embedded so far."""
    order = np.argsort([-len(t) for t in texts], kind="stable")
    vectors = np.empty((len(texts), encoder.dim), dtype=np.float32)
    piece = batch_size * 4
    for at in range(0, len(texts), piece):
        rows = order[at : at + piece]
        vectors[rows] = encoder.encode([texts[i] for i in rows], prompt="passage",
                                       batch_size=batch_size)
        if done is not None:
            done(at + len(rows))
    return vectors
