"""`EncoderInfo`: what a manifest or the UI needs to know about a loaded encoder."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class EncoderInfo:
    name: str
    path: str
    architecture: str
    layers: int
    heads: int
    hidden_size: int
    dim: int  # sentence-embedding size (after pooling)
    max_length: int  # tokens, specials included
    vocab_size: int
    languages: tuple[str, ...]
    pooling: str
    prompts: dict[str, str] = field(default_factory=dict)
    has_mlm_head: bool = False  # MLM (+ NSP) heads saved with the model: fill_mask works

    def to_dict(self) -> dict:
        return asdict(self)
