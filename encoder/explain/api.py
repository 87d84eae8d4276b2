"""`explain(encoder, a, b, method=..., steps=...)`: the entry point behind `Encoder.explain`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import torch

from .bounds import check_work
from .explanation import Explanation, sum_words
from .forward import check_torch, embed_fn
from .jacobians import pair_matrix, token_shares
from .occlusion import occlusion
from .side import ExplainError, Side, make_side

if TYPE_CHECKING:
    from ..protocol import EncoderLike

METHODS = ("integrated-jacobians", "occlusion")
DEFAULT_STEPS = 16


def explain(encoder: EncoderLike, a: str, b: str, *, method: str = "integrated-jacobians",
            steps: int = DEFAULT_STEPS, prompt_a: str | None = None,
            prompt_b: str | None = None,
            progress: Callable[[int, int], None] | None = None) -> Explanation:
    """Attribute the cosine of `a` and `b` to their words (and, for integrated Jacobians, to
    token pairs). `prompt_a`/`prompt_b` ("query"/"passage") add the model's prefixes, as
    `encode(prompt=...)` does; the prefix itself gets no attribution.

    `progress(done, total)` follows the integrated Jacobians' work in token passes (each
    Jacobian-vector product weighted by the length of the text it runs over: `work_units`), so
    a rate measured on the short query's products holds for the long chunk's; an exception it
    raises cancels the explanation at once (nothing runs on behind the caller's back)."""
    if method not in METHODS:
        raise ValueError(f"Invalid explanation method {method!r}. Valid: {', '.join(METHODS)}")
    if method != "occlusion" and (isinstance(steps, bool) or not isinstance(steps, int)
                                  or steps < 1):  # occlusion takes no steps: none to check
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    embeddings = check_torch(encoder)
    sa = make_side(encoder, a, "a", prompt_a)
    sb = make_side(encoder, b, "b", prompt_b)
    check_work(method, steps, sa, sb)  # steps and steps x tokens bounded (bounds.py)
    started = time.perf_counter()
    if method == "occlusion":
        parts = occlusion(encoder, sa, sb)
        steps = 0
    else:
        parts = _jacobians(encoder, embeddings, sa, sb, steps, progress)
    seconds = time.perf_counter() - started
    return Explanation(method=method, text_a=sa.text, text_b=sb.text, tokens_a=sa.tokens,
                       tokens_b=sb.tokens, words_a=sa.words, words_b=sb.words, steps=steps,
                       backend=encoder.backend,
                       backend_score=_backend_score(encoder, (a, prompt_a), (b, prompt_b),
                                                    parts["score"]),
                       seconds=seconds, **parts)


def _backend_score(encoder: EncoderLike, a: tuple[str, str | None], b: tuple[str, str | None],
                   torch_score: float) -> float:
    """The cosine `encoder.encode` gives the pair: the torch score where torch encodes, else
    the export's own (an index built on it scores hits with these vectors)."""
    if encoder.backend == "torch":
        return torch_score
    fa, fb = (encoder.encode([text], prompt=prompt)[0] for text, prompt in (a, b))
    return float(fa @ fb)


def work_units(encoder: EncoderLike, a: str, b: str, *, steps: int = DEFAULT_STEPS,
               prompt_a: str | None = None, prompt_b: str | None = None) -> int:
    """The work of an integrated-Jacobians explanation of `a` and `b` in token passes (what
    `progress` counts to): steps x content tokens Jacobian-vector products per text, each
    weighted by its text's length in tokens, since each is a forward pass over that text. Time
    grows about in proportion (a query's products are cheap, a long chunk's are not: counted
    in products, the first seconds on the query promised far too short a wait)."""
    sa = make_side(encoder, a, "a", prompt_a)
    sb = make_side(encoder, b, "b", prompt_b)
    return steps * (_cost(sa) + _cost(sb))


def occlusion_work(encoder: EncoderLike, a: str, b: str, *, prompt_a: str | None = None,
                   prompt_b: str | None = None) -> int:
    """The token passes an occlusion of `a` and `b` makes (`estimate.occlusion_units`), worked
    out from the texts alone, before it runs."""
    from .estimate import occlusion_units

    sa = make_side(encoder, a, "a", prompt_a)
    sb = make_side(encoder, b, "b", prompt_b)
    return occlusion_units(len(sa.tokens), len(sa.words), len(sb.tokens), len(sb.words))


def _cost(side: Side) -> int:
    """Token passes of one product per content token of `side` (one step)."""
    return int(side.content.sum()) * int(side.input_ids.shape[1])


def _jacobians(encoder: EncoderLike, embeddings: torch.nn.Embedding, sa: Side, sb: Side,
               steps: int, progress: Callable[[int, int], None] | None) -> dict:
    total = steps * (_cost(sa) + _cost(sb))
    done = [0]

    def advance(n: int, length: int) -> None:  # n products over a text of `length` tokens
        done[0] += n * length
        progress(done[0], total)

    if progress is not None:
        progress(0, total)
    shares = []
    for side in (sa, sb):
        with torch.no_grad():
            x = embeddings(side.input_ids)  # (1, T, H)
            r = embeddings(side.reference_ids)
        length = int(side.input_ids.shape[1])
        with embed_fn(encoder) as f:
            shares.append(token_shares(
                f, x, r, side.content, steps,
                (lambda n, length=length: advance(n, length)) if progress is not None else None))
    A, target, error = pair_matrix(*shares)
    tokens = A.double().numpy()
    words = sum_words(tokens, sa.words, sb.words)
    return {
        "token_matrix": tokens,
        "word_matrix": words,
        "word_scores_a": words.sum(1),
        "word_scores_b": words.sum(0),
        "score": float(shares[0].embedding @ shares[1].embedding),
        "target": target,
        "error": error,
    }


__all__ = ["DEFAULT_STEPS", "METHODS", "ExplainError", "explain", "work_units"]
