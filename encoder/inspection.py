"""`inspect`: tokens, segments, word groups, attentions and hidden states of one input, as data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from .validation import check_text
from .words import WordGroup, group_tokens

if TYPE_CHECKING:
    from .protocol import EncoderLike


@dataclass
class Inspection:
    text: str
    text_pair: str | None
    tokens: list[str]
    token_ids: list[int]
    segment_ids: list[int]  # 0 = first sentence (with [CLS] and its [SEP]), 1 = second
    special_mask: list[bool]
    offsets: list[tuple[int, int]]  # character span of each token in its own segment's text
    word_groups: list[WordGroup]
    attentions: np.ndarray  # (layers, heads, T, T), each row sums to 1
    hidden_states: np.ndarray  # (layers + 1, T, hidden); [0] is the embedding layer's output
    truncated: bool  # the input was cut at the model's max length

    @property
    def words(self) -> list[str]:
        return [g.word for g in self.word_groups]


def inspect(encoder: EncoderLike, text: str, text_pair: str | None = None) -> Inspection:
    """Run `encoder`'s transformer once on `text` (and `text_pair`) with eager attention."""
    check_text(text, "text")
    texts = [text]
    if text_pair is not None:
        check_text(text_pair, "text_pair")
        texts.append(text_pair)
    tok = encoder.tokenizer
    full = tok(*texts, add_special_tokens=True, truncation=False, verbose=False)
    enc = tok(
        *texts,
        add_special_tokens=True,
        truncation="longest_first" if text_pair is not None else True,
        max_length=encoder.max_length,
        return_offsets_mapping=True,
        return_tensors="pt",
    )
    sequence_ids = enc.sequence_ids(0)
    segment_ids = segments_from_sequence_ids(sequence_ids)
    inputs = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
    if "token_type_ids" in enc:  # BERT tokenizers; XLM-R ones have none and the model uses 0
        inputs["token_type_ids"] = enc["token_type_ids"]
    with encoder.eager_attention() as model, torch.inference_mode():
        out = model(**inputs, output_attentions=True, output_hidden_states=True)
    attentions = torch.stack(out.attentions)[:, 0]  # (layers, heads, T, T)
    hidden = torch.stack(out.hidden_states)[:, 0]  # (layers + 1, T, H)
    ids = enc["input_ids"][0].tolist()
    tokens = tok.convert_ids_to_tokens(ids)
    offsets = [tuple(map(int, o)) for o in enc["offset_mapping"][0].tolist()]
    truncated = len(full["input_ids"]) > len(ids)
    return Inspection(
        text=text,
        text_pair=text_pair,
        tokens=tokens,
        token_ids=ids,
        segment_ids=segment_ids,
        special_mask=[s is None for s in sequence_ids],
        offsets=offsets,
        word_groups=group_tokens(tokens, offsets, sequence_ids, segment_ids, texts,
                                 truncated=truncated),
        attentions=attentions.float().numpy(),
        hidden_states=hidden.float().numpy(),
        truncated=truncated,
    )


def segments_from_sequence_ids(sequence_ids: Sequence[int | None]) -> list[int]:
    """Sentence A / B of each position, as BERT's segment embeddings see it.

    A special token belongs to the sentence it closes ([CLS] and the first [SEP] to A, the last
    [SEP] to B). XLM-R's doubled separator `</s></s>` between A and B is split: one closes A,
    the next opens B.
    """
    out: list[int] = []
    current = 0
    for i, seq in enumerate(sequence_ids):
        if seq is not None:
            current = seq
        elif i > 0 and sequence_ids[i - 1] is None and _next_real(sequence_ids, i) > current:
            current = _next_real(sequence_ids, i)
        out.append(current)
    return out


def _next_real(sequence_ids: Sequence[int | None], i: int) -> int:
    for seq in sequence_ids[i:]:
        if seq is not None:
            return seq
    return -1


def merge_subwords(attention: np.ndarray, groups: Sequence[WordGroup]) -> np.ndarray:
    """Token-level attention (..., T, T) → word-level (..., W, W).

    Attention *to* a word is the sum over its tokens; attention *from* a word is the mean over
    its tokens (Clark et al., 2019), so every row still sums to 1.
    """
    index = [g.tokens for g in groups]
    to_words = np.stack([attention[..., idx].sum(-1) for idx in index], axis=-1)  # (..., T, W)
    return np.stack([to_words[..., idx, :].mean(-2) for idx in index], axis=-2)  # (..., W, W)
