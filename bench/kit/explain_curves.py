"""Deletion curves for bench/explain.py: remove one text's words in some order, re-encode, and
record the cosine. Orders: attributions, occlusion, last-layer [CLS] attention, random."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from encoder.explain.occlusion import embed, without
from encoder.explain.side import Side, make_side

GRID = np.linspace(0.0, 1.0, 11)  # fraction of the words removed


def deletion_curve(encoder, fa: np.ndarray, side: Side, order: Sequence[int]) -> np.ndarray:
    """Cosine to `fa` as the words of `side` go, in `order`; resampled onto GRID."""
    spans = [(side.words[i].start, side.words[i].end) for i in order]
    texts = [without(side.text, spans[:k]) for k in range(len(spans) + 1)]
    vectors = embed(encoder, side, texts)  # (W + 1, D); "" is the prompt (or nothing) alone
    cosines = vectors @ fa
    return np.interp(GRID, np.linspace(0.0, 1.0, len(cosines)), cosines)


def auc(curve: np.ndarray) -> float:
    """Area under a GRID curve (lower: the order found the words the score rests on sooner)."""
    return float(np.trapezoid(curve, GRID))


def cls_attention_scores(encoder, side: Side) -> np.ndarray:
    """Per word: last-layer attention from [CLS], averaged over heads, summed over its tokens."""
    with encoder.eager_attention() as model, torch.inference_mode():
        out = model(input_ids=side.input_ids, attention_mask=torch.ones_like(side.input_ids),
                    output_attentions=True)
    row = out.attentions[-1][0].mean(0)[0].numpy()  # (T,): heads averaged, from [CLS]
    return np.array([row[g.tokens].sum() for g in side.words])


def descending(scores: np.ndarray) -> list[int]:
    return [int(i) for i in np.argsort(-np.asarray(scores), kind="stable")]


def curves_for(encoder, a: str, b: str, prompts: tuple[str | None, str | None],
               ij, occ, rng: np.random.Generator, randoms: int = 3) -> dict[str, np.ndarray]:
    """Deletion curves of b's words for every order (`ij`, `occ`: the two explanations)."""
    sa = make_side(encoder, a, "a", prompts[0])
    sb = make_side(encoder, b, "b", prompts[1])
    fa = embed(encoder, sa, [sa.text])[0]
    orders = {
        "integrated-jacobians": descending(ij.word_scores_b),
        "occlusion": descending(occ.word_scores_b),
        "attention": descending(cls_attention_scores(encoder, sb)),
    }
    out = {name: deletion_curve(encoder, fa, sb, order) for name, order in orders.items()}
    n = len(sb.words)
    out["random"] = np.mean([deletion_curve(encoder, fa, sb, list(rng.permutation(n)))
                             for _ in range(randoms)], axis=0)
    return out
