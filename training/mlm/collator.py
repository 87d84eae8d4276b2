"""Batches for pretraining: pad, then BERT's 80/10/10 masking (`encoder.masking.BertMasker`)."""

from __future__ import annotations

import torch

from encoder.masking import BertMasker


class MlmCollator:
    """Examples from `examples.py` -> padded tensors with masked `input_ids` and `labels`
    (original ids at the selected positions, -100 elsewhere), and `next_sentence_label` where
    the examples carry one."""

    def __init__(self, tokenizer, probability: float = 0.15, *, whole_word: bool = False,
                 seed: int | None = None) -> None:
        self.tokenizer = tokenizer
        self.masker = BertMasker(tokenizer, probability, whole_word=whole_word, seed=seed)

    def __call__(self, examples: list[dict]) -> dict[str, torch.Tensor]:
        keys = [k for k in ("input_ids", "token_type_ids") if k in examples[0]]
        batch = self.tokenizer.pad([{k: e[k] for k in keys} for e in examples],
                                   return_tensors="pt")
        width = batch["input_ids"].shape[1]
        word_ids = None
        if self.masker.whole_word:
            word_ids = torch.full((len(examples), width), -1, dtype=torch.long)
            for row, e in enumerate(examples):
                word_ids[row, : len(e["word_ids"])] = torch.tensor(e["word_ids"])
        batch["input_ids"], batch["labels"] = self.masker(
            batch["input_ids"], batch["attention_mask"], word_ids
        )
        if "next_sentence_label" in examples[0]:
            batch["next_sentence_label"] = torch.tensor(
                [e["next_sentence_label"] for e in examples]
            )
        return dict(batch)
