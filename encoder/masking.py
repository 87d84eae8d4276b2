"""BERT's masked-language-model draw: select a share of the tokens (or of whole words), then
replace 80 % of the selected by the mask token, 10 % by a random token, and keep 10 %.

The token-level draw is transformers' own `DataCollatorForLanguageModeling.torch_mask_tokens`.
Whole-word masking selects words here and hands the selection to the same library code for the
80/10/10 replacement, because the library's own whole-word mode (transformers 5) differs from
BERT's in two ways: it groups tokens by touching character offsets, so a Chinese run without
spaces ("苹果好吃") or "word," becomes one "word"; and it turns the 80/10/10 rule off (every
selected token becomes the mask token). Here words are jieba's (Chinese words, English words,
punctuation on their own; `encoder.words`), and the rule stays 80/10/10 per token, as in
Google's whole-word-masking BERT.

Never selected: special tokens ([CLS], [SEP], [PAD], [UNK], [MASK]...) and padding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import DataCollatorForLanguageModeling

from .validation import check_text
from .words import group_tokens

IGNORE = -100  # label of a position that is not predicted (PyTorch's CrossEntropyLoss default)
STATUSES = ("mask", "random", "kept")


class BertMasker:
    """Masks batches of token ids as BERT's pretraining does; `seed` makes the draws repeatable."""

    def __init__(
        self,
        tokenizer,
        probability: float = 0.15,
        *,
        whole_word: bool = False,
        seed: int | None = None,
    ) -> None:
        if tokenizer.mask_token is None:
            raise ValueError(f"{type(tokenizer).__name__} has no mask token; MLM needs one")
        if not 0 < probability < 1:
            raise ValueError(f"mask probability must be in (0, 1), got {probability}")
        self.tokenizer = tokenizer
        self.probability = probability
        self.whole_word = whole_word
        self.generator = torch.Generator().manual_seed(seed) if seed is not None else None
        self._special_ids = torch.tensor(sorted(set(tokenizer.all_special_ids)))
        # The library collator: selection with `probability` (token level), or with 1.0 over a
        # selection made here (whole words); both then apply its 80/10/10 replacement.
        self._library = DataCollatorForLanguageModeling(tokenizer, mlm_probability=probability)
        self._replace = DataCollatorForLanguageModeling(tokenizer, mlm_probability=1.0)

    def special_mask(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, T) bool: positions that may never be selected (special tokens and padding)."""
        special = torch.isin(input_ids, self._special_ids)
        if attention_mask is not None:
            special |= attention_mask == 0
        return special

    def __call__(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        word_ids: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(masked input ids, labels) for a (B, T) batch; labels are the original ids at the
        selected positions and `IGNORE` elsewhere. `input_ids` is not modified.

        `word_ids` (B, T), -1 for special tokens and padding, is needed with `whole_word`."""
        inputs = input_ids.clone()
        no_select = self.special_mask(input_ids, attention_mask)
        if not self.whole_word:
            collator = self._library
        else:
            if word_ids is None:
                raise ValueError("whole-word masking needs word_ids (see word_ids_for)")
            no_select |= ~select_words(word_ids, self.probability, self.generator)
            collator = self._replace
        collator.generator = self.generator
        return collator.torch_mask_tokens(inputs, special_tokens_mask=no_select.long())


def select_words(
    word_ids: torch.Tensor, probability: float, generator: torch.Generator | None = None
) -> torch.Tensor:
    """(B, T) bool: every token of each word drawn with `probability` (one draw per word)."""
    words = int(word_ids.max().item()) + 1 if word_ids.numel() else 0
    draw = torch.rand((word_ids.shape[0], max(words, 1)), generator=generator) < probability
    picked = torch.gather(draw, 1, word_ids.clamp(min=0))  # (B, T)
    return picked & (word_ids >= 0)


def word_ids_for(
    tokens: Sequence[str],
    offsets: Sequence[tuple[int, int]],
    sequence_ids: Sequence[int | None],
    texts: Sequence[str],
) -> list[int]:
    """Word index of each token of one encoded text (or pair), -1 for special tokens.

    Words are jieba's, so WordPiece's `##` pieces, SentencePiece pieces and the characters of a
    Chinese word (苹 果) fall in one word, while punctuation is a word of its own."""
    segments = [0 if s in (None, 0) else 1 for s in sequence_ids]
    groups = group_tokens(tokens, offsets, sequence_ids, segments, texts)
    ids = [-1] * len(tokens)
    word = 0
    for group in groups:
        if group.special:
            continue
        for i in group.tokens:
            ids[i] = word
        word += 1
    return ids


@dataclass
class MaskDraw:
    """One text after BERT's draw, position by position (for showing, and for scoring)."""

    text: str
    tokens: list[str]  # the original tokens, specials included
    token_ids: list[int]
    input_ids: list[int]  # what the model sees after the draw
    labels: list[int]  # the original id where selected, IGNORE elsewhere
    status: list[str]  # "" (not selected), "mask", "random" or "kept"
    shown: list[str]  # the token the model sees at each position
    probability: float
    whole_word: bool
    seed: int

    @property
    def selected(self) -> list[int]:
        return [i for i, s in enumerate(self.status) if s]

    def counts(self) -> dict[str, int]:
        return {s: self.status.count(s) for s in STATUSES}


def draw_mask(
    tokenizer,
    text: str,
    *,
    probability: float = 0.15,
    seed: int = 0,
    whole_word: bool = False,
    max_length: int = 512,
) -> MaskDraw:
    """BERT's 80/10/10 draw on one text, with a seed, as data: what was selected and what each
    selected position became."""
    check_text(text, "text")
    enc = tokenizer(
        text, truncation=True, max_length=max_length, return_offsets_mapping=True,
        return_tensors="pt",
    )
    ids = enc["input_ids"]  # (1, T)
    tokens = tokenizer.convert_ids_to_tokens(ids[0].tolist())
    word_ids = None
    if whole_word:
        offsets = [tuple(map(int, o)) for o in enc["offset_mapping"][0].tolist()]
        word_ids = torch.tensor([word_ids_for(tokens, offsets, enc.sequence_ids(0), [text])])
    masker = BertMasker(tokenizer, probability, whole_word=whole_word, seed=seed)
    inputs, labels = masker(ids, enc["attention_mask"], word_ids)
    status = classify(ids[0], inputs[0], labels[0], tokenizer.mask_token_id)
    return MaskDraw(
        text=text,
        tokens=tokens,
        token_ids=ids[0].tolist(),
        input_ids=inputs[0].tolist(),
        labels=labels[0].tolist(),
        status=status,
        shown=tokenizer.convert_ids_to_tokens(inputs[0].tolist()),
        probability=probability,
        whole_word=whole_word,
        seed=seed,
    )


def classify(
    original: torch.Tensor, masked: torch.Tensor, labels: torch.Tensor, mask_id: int
) -> list[str]:
    """Per position: "" (not selected), "mask", "random" or "kept", read from the outcome.

    A random replacement that happens to draw the original token (or the mask token) reads as
    "kept" (or "mask"): the model cannot tell those apart either."""
    out = []
    for o, m, label in zip(original.tolist(), masked.tolist(), labels.tolist(), strict=True):
        if label == IGNORE:
            out.append("")
        elif m == mask_id:
            out.append("mask")
        elif m == o:
            out.append("kept")
        else:
            out.append("random")
    return out
