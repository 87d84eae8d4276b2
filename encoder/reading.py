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
