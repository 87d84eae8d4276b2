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


def model_fingerprint(model) -> str:
    """The fingerprint of a torch `SentenceTransformer`: its transformer's config (less where and
    how it was loaded), module types, pooling, max length, vocabulary size and every weight."""
    transformer = model[0].auto_model
    config = {
        "transformer": transformer.config.to_dict(),
        "modules": [type(m).__name__ for m in model],
        "pooling": pooling_mode(model),
        "max_length": int(model.max_seq_length),
        "vocab": len(model.tokenizer),
    }
    for key in ("_attn_implementation", "transformers_version", "_name_or_path"):
        config["transformer"].pop(key, None)  # not identity: where and how it was loaded
    return fingerprint(config, model.state_dict())


def pooling_mode(model) -> str:
    """The pooling mode of a `SentenceTransformer`'s Pooling module, or "none"."""
    for module in model:
        config = getattr(module, "get_config_dict", lambda: {})()
        if "pooling_mode" in config:
            return str(config["pooling_mode"])
    return "none"
