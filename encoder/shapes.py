"""Shape buckets: a batch's token ids padded to one of a few (rows, tokens) shapes.

OpenVINO's CPU plugin compiles and caches primitives per input shape, so a server whose batches
come in every (rows x longest text) pair grows its cache with every new pair (runtime.py). Padding
each batch up to a bucket bounds the shapes it ever sees, at the cost of running a few pad tokens
(masked: they change no real token's attention nor the mean pool) and a few dummy rows (copies of
the first row, dropped from the output).
"""

from __future__ import annotations

import numpy as np

__all__ = ["bucket_rows", "bucket_tokens", "pad_to_bucket", "token_buckets"]

MIN_STEP = 8  # token buckets: multiples of 8 up to 64 tokens, then 4 per doubling


def bucket_tokens(n: int, window: int) -> int:
    """The token count a batch whose longest row has `n` tokens is padded to: `n` rounded up to
    a multiple of 8 (n <= 64) or of an eighth of the next power of two (64 < n: 80, 96, 112,
    128, 160, ...), never past `window` (the model's max_seq_length)."""
    if n >= window:
        return window
    step = max(MIN_STEP, (1 << (max(n, 1) - 1).bit_length()) // 8)
    return min(window, -(-n // step) * step)


def token_buckets(window: int) -> list[int]:
    """Every token count `bucket_tokens` pads to for a model whose window is `window`."""
    return sorted({bucket_tokens(n, window) for n in range(1, window + 1)})


def bucket_rows(n: int) -> int:
    """The rows a batch of `n` texts is padded to: 1, 2, 3, 4, 6, 8, 12, 16, 24, ... (powers of
    two and 1.5x them), so a dummy row costs at most a third of the real ones."""
    if n <= 2:
        return max(n, 1)
    power = 1 << (n - 1).bit_length()  # the next power of two >= n
    return power * 3 // 4 if n <= power * 3 // 4 else power


def pad_to_bucket(inputs: dict[str, np.ndarray], window: int,
                  pad_id: int) -> dict[str, np.ndarray]:
    """`inputs` (name -> (rows, tokens) int64, as FastModel.tokenize makes them) padded to
    (`bucket_rows(rows)`, `bucket_tokens(tokens, window)`): new columns hold `pad_id` in
    `input_ids` and 0 elsewhere (attention_mask 0: masked); new rows copy row 0."""
    rows, tokens = inputs["input_ids"].shape
    target_rows, target_tokens = bucket_rows(rows), bucket_tokens(tokens, window)
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
