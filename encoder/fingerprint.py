"""A model's identity: a stable hash of its configuration and weights."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

import torch


def fingerprint(config: Mapping[str, object], state_dict: Mapping[str, torch.Tensor]) -> str:
    """Hex digest over the sorted config JSON and every tensor (name, dtype, shape, bytes).

    Same weights and config give the same digest across processes and machines; any changed
    weight, shape or config value gives a different one.
    """
    h = hashlib.blake2b(digest_size=16)
    h.update(json.dumps(config, sort_keys=True, default=str).encode())
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        h.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}".encode())
        h.update(tensor.view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return h.hexdigest()
