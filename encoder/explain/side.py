"""`Side`: one text of an explained pair, tokenised as the model sees it, with its word groups
and the neutral reference input the attributions are measured from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ..validation import check_text
from ..words import WordGroup, group_tokens

if TYPE_CHECKING:
    from ..protocol import EncoderLike


class ExplainError(ValueError):
    """An input or model that cannot be explained; the message names the fix."""


@dataclass(frozen=True)
class Side:
    text: str  # as given (without the model's prompt prefix)
    prefix: str  # the prompt prefix the model sees before it ("" when none)
    tokens: list[str]
    input_ids: torch.Tensor  # (1, T)
    reference_ids: torch.Tensor  # (1, T): [PAD] wherever a content token is, fixed tokens kept
    content: torch.Tensor  # (T,) bool: a token of `text` (not a special, not the prefix)
    words: list[WordGroup]  # content tokens grouped into words; spans index `text`

    @property
    def word_strings(self) -> list[str]:
        return [g.word for g in self.words]


def make_side(encoder: EncoderLike, text: object, where: str, prompt: str | None) -> Side:
    """Tokenise `text` with `prompt`'s prefix; raise `ExplainError` when it is too long."""
    check_text(text, where)
    prefix = encoder.prompt_prefix(prompt)
    full = prefix + text
    tok = encoder.tokenizer
    enc = tok(full, add_special_tokens=True, truncation=False, return_offsets_mapping=True,
              verbose=False)
    ids = list(enc["input_ids"])
    if len(ids) > encoder.max_length:
        raise ExplainError(
            f"{where} has {len(ids)} tokens, more than {encoder.name!r} reads "
            f"({encoder.max_length}): explain a shorter text, e.g. one chunk of it")
    seq = enc.sequence_ids(0)
    offsets = [tuple(map(int, o)) for o in enc["offset_mapping"]]
    content = [s is not None and o[1] > len(prefix) for s, o in zip(seq, offsets, strict=True)]
    if not any(content):
        raise ExplainError(f"{where} has no tokens the model reads; pass some words")
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.unk_token_id
    reference = [pad if c else i for i, c in zip(ids, content, strict=True)]
    tokens = tok.convert_ids_to_tokens(ids)
    # word groups over the text itself: offsets shifted past the prefix, prefix tokens dropped
    shifted = [(max(s - len(prefix), 0), e - len(prefix)) if c else (0, 0)
               for (s, e), c in zip(offsets, content, strict=True)]
    seq_ids = [0 if c else None for c in content]
    groups = [g for g in group_tokens(tokens, shifted, seq_ids, [0] * len(ids), [text])
              if not g.special]
    return Side(text, prefix, tokens, torch.tensor([ids]), torch.tensor([reference]),
                torch.tensor(content), groups)
