"""`BertPretrainer`: transformers' BertForPreTraining around an encoder's own BertModel, with the
MLM loss computed at the selected positions only, and an optional frozen encoder (head-only).

The decoder runs only where a label is set (about 15 % of the tokens), which saves most of the
vocabulary projection: 30,522 x 384 per token for minilm, 250,002 x 384 for e5.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from transformers import BertForPreTraining, BertModel

from encoder.heads import load_heads, new_heads, tie
from encoder.masking import IGNORE

from ..errors import TrainingError


class BertPretrainer(BertForPreTraining):
    freeze_encoder: bool = False

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None,
                next_sentence_label=None):
        grad = torch.is_grad_enabled() and not self.freeze_encoder
        with torch.set_grad_enabled(grad):
            hidden = self.bert(input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state  # (B, T, H)
        loss = hidden.new_zeros(())
        out = {}
        if labels is not None:
            selected = labels != IGNORE  # (B, T)
            logits = self.cls.predictions(hidden[selected])  # (N, V)
            mlm = F.cross_entropy(logits, labels[selected]) if selected.any() else logits.sum() * 0
            out["mlm_loss"] = mlm.detach()
            loss = loss + mlm
        if next_sentence_label is not None:
            nsp_logits = self.cls.seq_relationship(self.bert.pooler(hidden))  # (B, 2)
            nsp = F.cross_entropy(nsp_logits, next_sentence_label)
            out["nsp_loss"] = nsp.detach()
            loss = loss + nsp
        out["loss"] = loss
        return out

    def train(self, mode: bool = True):
        super().train(mode)
        if self.freeze_encoder:  # a frozen encoder runs as at inference time (no dropout)
            self.bert.eval()
        return self


def build_pretrainer(bert: torch.nn.Module, heads_folder=None, *, head_only: bool = False,
                     nsp: bool = False) -> BertPretrainer:
    """Wrap `bert` (shared, not copied) with the heads saved in `heads_folder`, or fresh ones."""
    if not isinstance(bert, BertModel):
        raise TrainingError(
            f"MLM pretraining needs a BERT-architecture encoder (BertModel); this one is "
            f"{type(bert).__name__}"
        )
    with torch.device("meta"):  # the shell only: its encoder and heads are replaced below
        model = BertPretrainer(bert.config)
    model.bert = bert
    loaded = load_heads(heads_folder, bert) if heads_folder is not None else None
    model.cls = loaded.module if loaded is not None else new_heads(bert)
    if loaded is not None and loaded.pooler is not None and loaded.pooler is not bert.pooler:
        bert.pooler.load_state_dict(loaded.pooler.state_dict())  # trained with the NSP head
    tie(model.cls, bert)
    if nsp and bert.pooler is not None and not bert.pooler.dense.weight.any():
        torch.nn.init.normal_(bert.pooler.dense.weight, std=bert.config.initializer_range)
    model.freeze_encoder = head_only
    if head_only:
        for p in bert.parameters():
            p.requires_grad_(False)
        if nsp and bert.pooler is not None:  # the pooler is part of BERT's NSP classifier
            for p in bert.pooler.parameters():
                p.requires_grad_(True)
    model.cls.train()
    return model


def load_pretraining_model(folder) -> BertForPreTraining:
    """A run folder as transformers' `BertForPreTraining` (encoder + the saved heads)."""
    model = BertForPreTraining.from_pretrained(str(folder))
    heads = load_heads(folder, model.bert)
    if heads is None:
        raise TrainingError(f"{folder} holds no mlm_heads.safetensors")
    model.cls = heads.module
    return model
