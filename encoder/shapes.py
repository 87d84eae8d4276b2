"""Shape buckets: a batch's token ids padded to one of a few (rows, tokens) shapes.

OpenVINO's CPU plugin compiles and caches primitives per input shape, so a server whose batches
come in every (rows x longest text) pair grows its cache with every new pair (runtime.py). Padding
each batch up to a bucket bounds the shapes it ever sees, at the cost of running a few pad tokens
(masked: they change no real token's attention nor the mean pool) and a few dummy rows (copies of
the first row, dropped from the output).
"""

from __future__ import annotations

import bisect
from functools import lru_cache

import numpy as np

__all__ = ["bucket_rows", "bucket_tokens", "pad_to_bucket", "token_buckets"]

MIN_STEP = 8  # token buckets: multiples of 8 up to 64 tokens, then 4 per doubling


def _stepped(n: int, window: int) -> int:
    step = max(MIN_STEP, (1 << (max(n, 1) - 1).bit_length()) // 8)
    return min(window, -(-n // step) * step)


@lru_cache(maxsize=64)
def token_buckets(window: int, avoid: frozenset[int] = frozenset()) -> tuple[int, ...]:
    """Every token count a batch is padded to for a model whose window is `window`: multiples
    of 8 up to 64, then of an eighth of the next power of two (80, 96, 112, 128, 160, ...),
    and the window. A count in `avoid` (one a runtime computes wrongly) is replaced by the
    count below it, so a batch of exactly that many tokens goes to the next bucket."""
    buckets = set()
    for b in {_stepped(n, window) for n in range(1, window + 1)}:
        if b in avoid and b != window:  # the window cannot be avoided: nothing lies past it
            b -= 1
            while b in avoid and b > 1:
                b -= 1
        buckets.add(b)
    return tuple(sorted(buckets))


def bucket_tokens(n: int, window: int, avoid: frozenset[int] = frozenset()) -> int:
    """The token count a batch whose longest row has `n` tokens is padded to: the smallest of
    `token_buckets(window, avoid)` that holds it (`window` past them all)."""
    buckets = token_buckets(window, avoid)
    i = bisect.bisect_left(buckets, n)
    return buckets[i] if i < len(buckets) else window


def bucket_rows(n: int) -> int:
    """The rows a batch of `n` texts is padded to: 1, 2, 3, 4, 6, 8, 12, 16, 24, ... (powers of
    two and 1.5x them), so a dummy row costs at most a third of the real ones."""
    if n <= 2:
        return max(n, 1)
    power = 1 << (n - 1).bit_length()  # the next power of two >= n
    return power * 3 // 4 if n <= power * 3 // 4 else power


def pad_to_bucket(inputs: dict[str, np.ndarray], window: int, pad_id: int,
                  avoid: frozenset[int] = frozenset()) -> dict[str, np.ndarray]:
    """`inputs` (name -> (rows, tokens) int64, as FastModel.tokenize makes them) padded to
    (`bucket_rows(rows)`, `bucket_tokens(tokens, window, avoid)`): new columns hold `pad_id`
    in `input_ids` and 0 elsewhere (attention_mask 0: masked); new rows copy row 0."""
    rows, tokens = inputs["input_ids"].shape
    target_rows, target_tokens = bucket_rows(rows), bucket_tokens(tokens, window, avoid)
    if (target_rows, target_tokens) == (rows, tokens):
        return inputs
    out = {}
    for name, value in inputs.items():
        padded = np.full((target_rows, max(tokens, target_tokens)),
                         pad_id if name == "input_ids" else 0, dtype=value.dtype)
        padded[:rows, :tokens] = value
        padded[rows:] = padded[0]
        out[name] = padded
    return out
