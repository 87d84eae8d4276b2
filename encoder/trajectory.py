"""`word_trajectory`: one word's contextual vector in several contexts, layer by layer; `pca_2d`:
those vectors on a 2-D map (numpy only), for a chart to draw."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .validation import check_text, check_texts

if TYPE_CHECKING:
    from .inspection import Inspection
    from .protocol import EncoderLike


@dataclass
class WordTrajectory:
    word: str
    contexts: list[str]
    spans: list[tuple[int, int]]  # character span of the word in each context
    token_indices: list[list[int]]  # the word's subword tokens in each context
    vectors: np.ndarray  # (contexts, layers + 1, hidden): the word, mean over its tokens
    cosine: np.ndarray  # (layers + 1, contexts, contexts)
    baseline: np.ndarray  # (layers + 1,): mean cosine of distinct token pairs of all contexts

    @property
    def layers(self) -> int:
        return self.vectors.shape[1]


POOLINGS = ("mean", "first", "last")  # how a word's subword tokens make one vector


def word_trajectory(encoder: EncoderLike, contexts: Sequence[str], word: str,
                    pooling: str = "mean") -> WordTrajectory:
    """The word's vector at every layer in each context (`pooling` its subword tokens: their
    mean, or the first or last one), their cosines, and the anisotropy baseline."""
    if pooling not in POOLINGS:
        raise ValueError(f"Invalid pooling {pooling!r}. Valid: {', '.join(POOLINGS)}")
    check_text(word, "word")
    if isinstance(contexts, Sequence) and not isinstance(contexts, (str, bytes, bytearray)):
        for i, context in enumerate(contexts):  # numbered as people count, as the app shows
            check_text(context, f"context #{i + 1}")
    contexts = check_texts(contexts, what="contexts", one_allowed=False)
    if len(contexts) < 2:
        raise ValueError("give at least two contexts to compare the word across")
    spans = [find_word(context, word, i) for i, context in enumerate(contexts)]

    vectors, indices, all_tokens = [], [], []
    for i, (context, (start, end)) in enumerate(zip(contexts, spans, strict=True)):
        ins = encoder.inspect(context)
        idx = word_tokens(ins, start, end)
        if not idx:
            raise ValueError(
                f"context #{i + 1} ({context!r}): {word!r} lies past the model's "
                f"{encoder.max_length}-token limit"
            )
        vectors.append(pool_tokens(ins.hidden_states, idx, pooling))  # (layers + 1, H)
        indices.append(idx)
        real = [t for t, special in enumerate(ins.special_mask) if not special]
        all_tokens.append(ins.hidden_states[:, real])  # (layers + 1, t_i, H)

    stacked = np.stack(vectors)  # (C, L+1, H)
    unit = stacked / np.linalg.norm(stacked, axis=-1, keepdims=True)
    cosine = np.einsum("clh,dlh->lcd", unit, unit)
    return WordTrajectory(
        word=word,
        contexts=contexts,
        spans=spans,
        token_indices=indices,
        vectors=stacked,
        cosine=cosine,
        baseline=anisotropy(np.concatenate(all_tokens, axis=1)),
    )


def word_tokens(ins: Inspection, start: int, end: int) -> list[int]:
    """Positions of the (non-special) tokens that overlap characters start..end of the text."""
    return [t for t, (s, e) in enumerate(ins.offsets)
            if not ins.special_mask[t] and s < end and e > start]


def pool_tokens(hidden: np.ndarray, idx: Sequence[int], pooling: str = "mean") -> np.ndarray:
    """hidden (layers + 1, T, H), the word's token positions → (layers + 1, H)."""
    if pooling == "first":
        return hidden[:, idx[0]]
    if pooling == "last":
        return hidden[:, idx[-1]]
    return hidden[:, list(idx)].mean(axis=1)


def find_word(context: str, word: str, index: int = 0) -> tuple[int, int]:
    """Character span of `word` (case-insensitive) in `context`: the first whole-word match
    ("bank", not "banking"), else the first substring match (Chinese has no word spaces).
    `index`: the context's place in the list (0 for the first), for the error message."""
    whole = re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", context, re.IGNORECASE)
    if whole:
        return whole.start(), whole.end()
    start = context.lower().find(word.lower())
    if start < 0:
        raise ValueError(f"{word!r} does not occur in context #{index + 1}: {context!r}")
    return start, start + len(word)


def anisotropy(tokens: np.ndarray) -> np.ndarray:
    """(layers, T, H) → (layers,): mean cosine over all pairs of distinct tokens.

    Contextual vectors share a common direction, so even unrelated tokens score well above 0;
    a similarity means something only against this chance level (Ethayarajh, 2019).
    """
    unit = tokens / np.linalg.norm(tokens, axis=-1, keepdims=True)
    t = unit.shape[1]
    if t < 2:
        raise ValueError("need at least two tokens for an anisotropy baseline")
    sums = unit.sum(axis=1)  # (layers, H)
    total = np.einsum("lh,lh->l", sums, sums)  # sum over all ordered pairs incl. self
    return (total - t) / (t * (t - 1))


def pca_2d(vectors: np.ndarray, fit_layer: int | None = None) -> np.ndarray:
    """(C, layers + 1, H) → (C, layers + 1, 2): a `WordTrajectory`'s vectors on two principal
    axes, computed on unit-normalised vectors.

    `fit_layer=None` fits one PCA on every layer's vectors, so the map stays comparable as the
    layer moves (the main axis then tends to follow depth); `fit_layer=l` fits it on layer l's
    vectors only, which shows how the contexts split at that depth. Normalising first stops the
    deeper layers' larger norms from dominating the projection.
    """
    vectors = np.asarray(vectors, dtype=float)
    if vectors.ndim != 3:
        raise ValueError(f"expected (contexts, layers, hidden) vectors, got shape {vectors.shape}")
    c, n, h = vectors.shape
    if fit_layer is not None and not 0 <= fit_layer < n:
        raise ValueError(f"fit_layer must be in 0..{n - 1} or None, got {fit_layer}")
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-12)
    fit = unit.reshape(c * n, h) if fit_layer is None else unit[:, fit_layer]
    mean = fit.mean(axis=0)
    _, _, vt = np.linalg.svd(fit - mean, full_matrices=False)
    comps = np.zeros((2, h))
    comps[: min(2, vt.shape[0])] = vt[:2]
    return ((unit.reshape(c * n, h) - mean) @ comps.T).reshape(c, n, 2)
