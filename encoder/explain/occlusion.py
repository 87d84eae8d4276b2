"""Occlusion: the model-agnostic baseline. Delete one word, re-encode, see the cosine drop.

`word_scores_a[p]` = s(a, b) - s(a without word p, b) (and likewise for b). The word matrix is
the pair analogue of the integrated Jacobians' u_i · v_j: (f(a) - f(a∖p)) · (f(b) - f(b∖q)),
one encode per word instead of one per word pair. Nothing is promised about its sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .side import Side

if TYPE_CHECKING:
    from ..protocol import EncoderLike


def without(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` with the character spans removed; the whitespace left behind is collapsed."""
    keep, last = [], 0
    for s, e in sorted(spans):
        keep.append(text[last:s])
        last = max(last, e)
    keep.append(text[last:])
    return " ".join("".join(keep).split())


def embed(encoder: EncoderLike, side: Side, texts: Sequence[str]) -> np.ndarray:
    """Unit embeddings of `texts` (with `side`'s prefix) on the torch model; "" is allowed."""
    vectors = encoder.model.encode([side.prefix + t for t in texts], normalize_embeddings=True,
                                   convert_to_numpy=True, batch_size=32)
    return np.asarray(vectors, dtype=np.float64)


def deletions(encoder: EncoderLike, side: Side) -> tuple[np.ndarray, np.ndarray]:
    """(f(text) (D,), f(text without word p) for every word p (W, D))."""
    texts = [side.text] + [without(side.text, [(g.start, g.end)]) for g in side.words]
    vectors = embed(encoder, side, texts)
    return vectors[0], vectors[1:]


def occlusion(encoder: EncoderLike, a: Side, b: Side) -> dict:
    fa, fa_minus = deletions(encoder, a)
    fb, fb_minus = deletions(encoder, b)
    score = float(fa @ fb)
    return {
        "token_matrix": None,
        "word_matrix": (fa - fa_minus) @ (fb - fb_minus).T,  # (Wa, Wb)
        "word_scores_a": score - fa_minus @ fb,
        "word_scores_b": score - fb_minus @ fa,
        "score": score,
        "target": float("nan"),
        "error": float("nan"),
    }
