"""What a tokenizer made of an input: how many tokens it read, how many it could not, and the
pieces a viewer may not recognise (SentencePiece's lone word-start mark)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WORD_START = "\u2581"  # SentencePiece's "▁": a word begins here


@dataclass(frozen=True)
class TokenReading:
    tokens: int  # tokens of the text itself ([CLS], [SEP], <s>, </s> not counted)
    unknown: int  # of them, the tokenizer's unknown token ([UNK] / <unk>)
    word_starts: int  # of them, a lone "▁": XLM-R reads it as a token before some words

    @property
    def reads_nothing(self) -> bool:
        """Only the tokenizer's own framing is left (control characters, dropped symbols)."""
        return self.tokens == 0

    @property
    def unknown_share(self) -> float:
        return self.unknown / self.tokens if self.tokens else 0.0


def read_tokens(tokens: Sequence[str], special_mask: Sequence[bool],
                unk_token: str | None) -> TokenReading:
    """Count what the tokenizer read of the text in `tokens` (special positions masked out)."""
    real = [t for t, special in zip(tokens, special_mask, strict=True) if not special]
    return TokenReading(
        tokens=len(real),
        unknown=sum(t == unk_token for t in real) if unk_token is not None else 0,
        word_starts=sum(t == WORD_START for t in real),
    )


UNREADABLE_SHARE = 0.25  # more unknown tokens than this: the model does not know the script


def read_text(tokenizer, text: str) -> TokenReading:
    """What `tokenizer` (a transformers tokenizer) reads of `text` (its special tokens aside)."""
    enc = tokenizer(text, add_special_tokens=True, truncation=False,
                    return_special_tokens_mask=True, verbose=False)
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"])
    return read_tokens(tokens, [bool(m) for m in enc["special_tokens_mask"]],
                       tokenizer.unk_token)


def unreadable_note(reading: TokenReading, model: str, unk_token: str | None,
                    what: str = "this text", fix: str = "") -> str | None:
    """One sentence saying that `model` cannot read `what` (no token, or mostly unknown ones),
    so what it computes from it says nothing of its meaning, then `fix`: what the caller offers
    to do about it (the page knows what exists: another model to pick, an index to search or to
    build); None when it can read it."""
    if reading.reads_nothing:
        return (f"{model} reads no token in {what} (only control characters or symbols its "
                "tokenizer drops): type some words.")
    if reading.unknown_share > UNREADABLE_SHARE:
        return (f"{reading.unknown} of {reading.tokens} tokens of {what} are {unk_token}: "
                f"{model} does not know this script, so what it finds for it is not about its "
                "meaning." + (f" {fix}" if fix else ""))
    return None
