"""Held-out scores of a `BertPretrainer`: masked-token top-1 / top-5 accuracy, loss and
perplexity on a fixed draw (same seed, same batches: before and after see identical masks), and
next-sentence accuracy."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from encoder.masking import IGNORE
from encoder.modes import eval_mode

from .collator import MlmCollator

EVAL_SEED = 1234  # the held-out draw is the same for every model and every run


@torch.inference_mode()
def masked_token_scores(model, tokenizer, examples: Sequence[dict], *, probability: float = 0.15,
                        whole_word: bool = False, batch_size: int = 32) -> dict[str, float]:
    """Top-1/top-5 accuracy, mean cross-entropy and perplexity at the selected positions."""
    collate = MlmCollator(tokenizer, probability, whole_word=whole_word, seed=EVAL_SEED)
    n = top1 = top5 = 0
    loss_sum = 0.0
    with eval_mode(model):  # the encoder is shared: each module back in its own mode after
        for start in range(0, len(examples), batch_size):
            batch = collate([{k: v for k, v in e.items() if k != "next_sentence_label"}
                             for e in examples[start: start + batch_size]])
            labels = batch.pop("labels")
            hidden = model.bert(**batch).last_hidden_state
            selected = labels != IGNORE
            if not selected.any():
                continue
            logits = model.cls.predictions(hidden[selected])  # (N, V)
            target = labels[selected]
            loss_sum += float(torch.nn.functional.cross_entropy(logits, target, reduction="sum"))
            best = logits.topk(5, dim=-1).indices  # (N, 5)
            top1 += int((best[:, 0] == target).sum())
            top5 += int((best == target[:, None]).any(-1).sum())
            n += int(target.numel())
    if not n:
        return {"masked_tokens": 0}
    loss = loss_sum / n
    return {"masked_tokens": n, "top1": top1 / n, "top5": top5 / n, "loss": loss,
            "perplexity": math.exp(min(loss, 50.0))}


@torch.inference_mode()
def next_sentence_accuracy(model, tokenizer, pairs: Sequence[dict], *,
                           batch_size: int = 32) -> dict[str, float]:
    """Share of held-out (A, B) pairs whose IsNext/NotNext the NSP head gets right."""
    if not pairs:
        return {"pairs": 0}
    right = 0
    with eval_mode(model):
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start: start + batch_size]
            keys = [k for k in ("input_ids", "token_type_ids") if k in chunk[0]]
            batch = tokenizer.pad([{k: e[k] for k in keys} for e in chunk], return_tensors="pt")
            pooled = model.bert.pooler(model.bert(**batch).last_hidden_state)
            guess = model.cls.seq_relationship(pooled).argmax(-1)
            right += int((guess == torch.tensor([e["next_sentence_label"] for e in chunk])).sum())
    return {"pairs": len(pairs), "accuracy": right / len(pairs),
            "is_next_share": sum(e["next_sentence_label"] == 0 for e in pairs) / len(pairs)}
