"""BERT's pretraining heads beside an encoder: the MLM head (dense + GELU + LayerNorm + a decoder
tied to the word embeddings, plus a bias) and the NSP head (a linear IsNext/NotNext classifier
on the pooled [CLS] vector), in transformers' `BertPreTrainingHeads` layout.

On disk, beside a model folder (or, for a bundled model, in `$BERTSCOPE_HOME/heads/<name>/`):
`mlm_heads.safetensors` holds the heads with BertForPreTraining's key names (`cls.predictions.*`,
`cls.seq_relationship.*`; the decoder weight is the word-embedding matrix and is not stored
twice), plus `bert.pooler.*` where the pooler was trained with the heads but the encoder was
not changed (a bundled model's weights stay untouched); `mlm_heads.json` says which heads were
trained, on what, and for which model. The encoder's own `model.safetensors` stays a plain
`BertModel`, so `load_encoder` reads the folder exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save
from torch import nn
from transformers.models.bert.modeling_bert import BertPooler, BertPreTrainingHeads

from common.atomic import write_atomic, write_json_atomic

from .heads_meta import (  # noqa: F401 - their home before heads_meta; importers use them here
    HEADS_FILE,
    HEADS_FORMAT,
    HEADS_META,
    bundled_heads_dir,
    has_heads,
    read_meta,
)

_TIED = ("cls.predictions.decoder.weight", "cls.predictions.decoder.bias")


class NoHeadError(LookupError):
    """The encoder has no (trained) MLM or NSP head; the message says how to train one."""


@dataclass
class PretrainingHeads:
    module: BertPreTrainingHeads  # .predictions (MLM), .seq_relationship (NSP)
    pooler: nn.Module  # [CLS] -> pooled vector for NSP (the encoder's own, or a trained copy)
    nsp: bool  # whether the NSP head was trained
    meta: dict[str, Any] = field(default_factory=dict)
    folder: Path | None = None



def new_heads(transformer: nn.Module) -> BertPreTrainingHeads:
    """Fresh heads for `transformer` (a BertModel), decoder tied to its word embeddings."""
    config = transformer.config
    heads = BertPreTrainingHeads(config)
    heads.apply(_init_weights(config.initializer_range))
    return tie(heads, transformer)


def tie(heads: BertPreTrainingHeads, transformer: nn.Module) -> BertPreTrainingHeads:
    """Share the decoder's weight with the word embeddings and its bias with `predictions.bias`,
    as BertForPreTraining does."""
    predictions = heads.predictions
    predictions.decoder.weight = transformer.get_input_embeddings().weight
    predictions.decoder.bias = predictions.bias
    return heads


def head_state(
    heads: BertPreTrainingHeads, pooler: nn.Module | None = None
) -> dict[str, torch.Tensor]:
    """The heads' tensors under BertForPreTraining's names (tied ones left out)."""
    state = {f"cls.{k}": v for k, v in heads.state_dict().items()}
    for key in _TIED:
        state.pop(key, None)
    if pooler is not None:
        state.update({f"bert.pooler.{k}": v for k, v in pooler.state_dict().items()})
    return {k: v.detach().cpu().contiguous() for k, v in state.items()}


def save_heads(
    folder: str | Path,
    heads: BertPreTrainingHeads,
    meta: dict[str, Any],
    *,
    pooler: nn.Module | None = None,
) -> Path:
    """Write `mlm_heads.safetensors` + `mlm_heads.json` into `folder` (each written aside, then
    renamed, the JSON last: a folder with the JSON has complete heads)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with write_atomic(folder / HEADS_FILE) as fh:
        fh.write(save(head_state(heads, pooler), metadata={"format": str(HEADS_FORMAT)}))
    write_json_atomic(folder / HEADS_META, {"format": HEADS_FORMAT, **meta})
    return folder


def load_heads(folder: Path, transformer: nn.Module) -> PretrainingHeads | None:
    """The heads saved in `folder`, tied to `transformer`, or None where there are none."""
    meta = read_meta(folder)
    if meta is None:
        return None
    config = transformer.config
    state = load_file(str(folder / HEADS_FILE))
    vocab = transformer.get_input_embeddings().weight.shape[0]
    if state["cls.predictions.bias"].shape[0] != vocab:
        raise ValueError(
            f"{folder}: heads for a vocabulary of {state['cls.predictions.bias'].shape[0]} "
            f"tokens, but this model has {vocab}; retrain them for this model"
        )
    heads = BertPreTrainingHeads(config)
    own = {k[len("cls."):]: v for k, v in state.items() if k.startswith("cls.")}
    missing, unexpected = heads.load_state_dict(own, strict=False)
    if unexpected or set(missing) - {"predictions.decoder.weight", "predictions.decoder.bias"}:
        raise ValueError(f"{folder / HEADS_FILE}: not BERT pretraining heads "
                         f"(missing {missing}, unexpected {unexpected})")
    tie(heads, transformer)
    pooler: nn.Module | None = transformer.pooler
    pooled = {k[len("bert.pooler."):]: v for k, v in state.items() if k.startswith("bert.pooler.")}
    if pooled:
        pooler = BertPooler(config)
        pooler.load_state_dict(pooled)
    heads.eval()
    if pooler is not None:
        pooler.eval()
    return PretrainingHeads(heads, pooler, bool(meta.get("nsp")), meta, folder)


def _init_weights(std: float):
    def init(module: nn.Module) -> None:  # BERT's initialisation
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    return init
