"""`tokenize(encoder, texts)`: what an encoder's own tokenizer makes of each text, as the model
reads it (the prompt's prefix first, where one is asked for): each token's id, its text, where it
sits in the input text (character offsets), and whether it is a special token or part of the
prompt; plus how many tokens the model reads (it cuts at `max_length`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .tokenizer_lock import tokenizer_lock
from .validation import check_texts


@dataclass(frozen=True)
class Token:
    id: int
    text: str  # the tokenizer's piece ("##ing", "▁apple", "[CLS]")
    start: int | None  # character offsets in the input text; None for special and prompt tokens
    end: int | None
    special: bool
    prompt: bool = False  # a token of the model's prompt prefix ("query: ")


@dataclass(frozen=True)
class Tokenized:
    tokens: list[Token]
    model_reads: int  # tokens the model reads: the first max_length


def tokenize(encoder, texts: str | Sequence[str], *, prompt: str | None = None,
             add_special_tokens: bool = True) -> list[Tokenized]:
    """`texts` (one or a list) through `encoder`'s tokenizer, untruncated."""
    items = check_texts(texts)
    prefix = encoder.prompt_prefix(prompt)
    tok = encoder.tokenizer
    with tokenizer_lock(tok):  # another thread may be padding a batch with it
        enc = tok([prefix + t for t in items], add_special_tokens=add_special_tokens,
                  truncation=False, return_offsets_mapping=True,
                  return_special_tokens_mask=True, verbose=False)
    out = []
    for ids, offsets, specials in zip(enc["input_ids"], enc["offset_mapping"],
                                      enc["special_tokens_mask"], strict=True):
        pieces = tok.convert_ids_to_tokens(ids)
        tokens = []
        for i, piece, (start, end), special in zip(ids, pieces, offsets, specials, strict=True):
            in_prompt = not special and start < len(prefix)
            plain = not special and not in_prompt
            tokens.append(Token(int(i), piece, start - len(prefix) if plain else None,
                                end - len(prefix) if plain else None, bool(special), in_prompt))
        out.append(Tokenized(tokens, min(len(tokens), encoder.max_length)))
    return out
