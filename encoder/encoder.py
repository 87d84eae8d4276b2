"""`Encoder`: one loaded BERT-family sentence encoder — encode, identify, look inside."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

from common import prompt_prefix

from .fingerprint import fingerprint
from .info import EncoderInfo
from .validation import check_texts

if TYPE_CHECKING:
    from .explain import Explanation
    from .fill_mask import MaskFill
    from .inspection import Inspection
    from .trajectory import WordTrajectory

log = logging.getLogger("bertscope.encoder")


@dataclass(frozen=True)
class Encoded:
    """What one `encode_with_info` call produced."""

    vectors: np.ndarray  # (n, dim) float32
    truncated: int  # inputs longer than max_length tokens, cut by the model

class Encoder:
    """A `SentenceTransformer` plus what BERTScope needs around it.

    `model` is the plain sentence-transformers model (training and benchmarks use it directly);
    `transformer` is the underlying transformers `BertModel`-like module.
    """

    def __init__(
        self,
        model: SentenceTransformer,
        *,
        name: str,
        path: str,
        languages: tuple[str, ...] = ("unknown",),
        backend: str = "torch",
        fidelity: float | None = 1.0,
        backend_note: str | None = None,
    ) -> None:
        self.model = model
        self.name = name
        self.path = path
        self.languages = languages
        self.backend = backend  # what encodes: one of backends.BACKENDS
        self.fidelity = fidelity  # min cosine to torch fp32 measured at export; 1.0 for torch
        self.backend_note = backend_note  # why `auto` fell back from a faster backend, or None
        self._attn_lock = threading.Lock()

    # -- parts -----------------------------------------------------------------------------
    @property
    def tokenizer(self):
        return self.model.tokenizer

    @property
    def transformer(self) -> torch.nn.Module:
        return self.model[0].auto_model

    @property
    def max_length(self) -> int:
        return int(self.model.max_seq_length)

    @property
    def dim(self) -> int:
        return int(self.model.get_embedding_dimension())

    @property
    def prompts(self) -> dict[str, str]:
        return dict(self.model.prompts or {})

    def prompt_prefix(self, prompt: str | None) -> str:
        """The text this model puts before an input for `prompt` ("" where it uses none)."""
        return prompt_prefix(self.prompts, prompt)

    # -- encoding --------------------------------------------------------------------------
    def encode(self, texts: str | Sequence[str], **options) -> np.ndarray:
        """Embed `texts` → float32 array (n, dim); the options are `encode_with_info`'s."""
        return self.encode_with_info(texts, **options).vectors

    def encode_with_info(
        self,
        texts: str | Sequence[str],
        *,
        batch_size: int = 32,
        normalize: bool = True,
        prompt: str | None = None,
        show_progress: bool = False,
    ) -> Encoded:
        """Embed `texts` → `Encoded`: float32 vectors (n, dim), unit rows when `normalize`, and
        how many inputs exceeded `max_length` tokens and were truncated (logged too). The count
        comes with the call: an encoder shared between threads or sessions keeps no state of it.

        `prompt` ("query"/"passage") adds the model's own prefix, if it has one.
        """
        items = check_texts(texts)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        prefix = self.prompt_prefix(prompt)
        lengths = self.token_lengths(items, prompt=prompt)
        truncated = sum(n > self.max_length for n in lengths)
        if truncated:
            log.warning(
                "%s: %d of %d inputs exceed %d tokens and were truncated",
                self.name, truncated, len(items), self.max_length,
            )
        if not items:
            return Encoded(np.empty((0, self.dim), dtype=np.float32), 0)
        vectors = self.model.encode(
            items,
            prompt=prefix or None,
            batch_size=batch_size,
            normalize_embeddings=normalize,
            show_progress_bar=show_progress,
            convert_to_numpy=True,
        )
        return Encoded(np.asarray(vectors, dtype=np.float32), truncated)

    def token_lengths(self, texts: Sequence[str], *, prompt: str | None = None) -> list[int]:
        """Untruncated token counts (specials included) of `texts` with the prompt's prefix."""
        if not texts:
            return []
        prefix = self.prompt_prefix(prompt)
        ids = self.tokenizer(
            [prefix + t for t in texts], add_special_tokens=True, truncation=False, verbose=False
        )["input_ids"]
        return [len(x) for x in ids]

    # -- introspection ---------------------------------------------------------------------
    @contextmanager
    def eager_attention(self):
        """Run the transformer with eager attention (SDPA returns no attention maps)."""
        with self._attn_lock:
            model = self.transformer
            previous = model.config._attn_implementation
            model.set_attn_implementation("eager")
            try:
                yield model
            finally:
                model.set_attn_implementation(previous)

    def inspect(self, text: str, text_pair: str | None = None) -> Inspection:
        from .inspection import inspect

        return inspect(self, text, text_pair)

    def word_trajectory(self, contexts: Sequence[str], word: str) -> WordTrajectory:
        from .trajectory import word_trajectory

        return word_trajectory(self, contexts, word)

    # -- pretraining heads (MLM / NSP; see fill_mask.py) ------------------------------------
    def fill_mask(self, text: str, top_k: int = 5) -> list[MaskFill]:
        from .fill_mask import fill_mask

        return fill_mask(self, text, top_k)

    def next_sentence(self, text_a: str, text_b: str) -> float:
        from .fill_mask import next_sentence

        return next_sentence(self, text_a, text_b)

    # -- explanation (see explain/) --------------------------------------------------------
    def explain(self, a: str, b: str, *, method: str = "integrated-jacobians", steps: int = 16,
                prompt_a: str | None = None, prompt_b: str | None = None) -> Explanation:
        """Why `a` and `b` get their cosine: see `encoder.explain.explain`."""
        from .explain import explain

        return explain(self, a, b, method=method, steps=steps, prompt_a=prompt_a,
                       prompt_b=prompt_b)

    # -- identity --------------------------------------------------------------------------
    @cached_property
    def fingerprint(self) -> str:
        """Stable hash of the model's config, pooling and weights."""
        config = {
            "transformer": self.transformer.config.to_dict(),
            "modules": [type(m).__name__ for m in self.model],
            "pooling": self._pooling_mode(),
            "max_length": self.max_length,
            "vocab": len(self.tokenizer),
        }
        for key in ("_attn_implementation", "transformers_version", "_name_or_path"):
            config["transformer"].pop(key, None)  # not identity: where and how it was loaded
        return fingerprint(config, self.model.state_dict())

    @cached_property
    def info(self) -> EncoderInfo:
        cfg = self.transformer.config
        return EncoderInfo(
            name=self.name,
            path=self.path,
            architecture=type(self.transformer).__name__,
            layers=int(cfg.num_hidden_layers),
            heads=int(cfg.num_attention_heads),
            hidden_size=int(cfg.hidden_size),
            dim=self.dim,
            max_length=self.max_length,
            vocab_size=len(self.tokenizer),
            languages=self.languages,
            pooling=self._pooling_mode(),
            prompts=self.prompts,
            has_mlm_head=self._has_heads(),
        )

    def _has_heads(self) -> bool:
        from .fill_mask import heads_folder
        from .heads import read_meta

        return read_meta(heads_folder(self)) is not None

    def _pooling_mode(self) -> str:
        for module in self.model:
            config = getattr(module, "get_config_dict", lambda: {})()
            if "pooling_mode" in config:
                return str(config["pooling_mode"])
        return "none"

    def __repr__(self) -> str:
        return f"Encoder(name={self.name!r}, path={self.path!r})"
