"""`diverged`: why a trained model must not be saved — weights or outputs that are not finite
numbers. A fine-tune at too high a learning rate (`adapt --lr 1e9`) ends with NaN weights that
turn every text into NaN; such a model was saved, offered and indexed (its NaN vectors
published). `fit` checks before every save and refuses instead."""

from __future__ import annotations

import numpy as np

PROBES = ("A short plain sentence.", "Another sentence about something else entirely.")


def diverged(model) -> str | None:
    """Why `model` (a SentenceTransformer) holds no usable weights, or None when it does."""
    import torch

    bad = [name for name, p in model.named_parameters() if not torch.isfinite(p).all()]
    if bad:
        return f"{len(bad)} weight tensors hold NaN or infinity (e.g. {bad[0]})"
    vectors = np.asarray(model.encode(list(PROBES), convert_to_numpy=True, show_progress_bar=False))
    if not np.isfinite(vectors).all():
        return "its vectors for plain sentences are NaN or infinity"
    return None


def refusal(problem: str, where: str, learning_rate: float) -> str:
    """The error for a model that `diverged` at `where`."""
    return (f"training diverged ({where}): {problem}; nothing was saved, so no index or page "
            f"can use it. The learning rate ({learning_rate:g}) is most likely too high: run "
            "again with a lower --lr in a new --out")
