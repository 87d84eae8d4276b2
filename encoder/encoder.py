"""`Encoder`: one loaded BERT-family sentence encoder — encode, identify, look inside."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import torch

from common import prompt_prefix

from .fingerprint import model_fingerprint, pooling_mode
from .info import EncoderInfo
from .modes import eval_mode
from .tokenizer_lock import tokenizer_lock
from .validation import check_texts

if TYPE_CHECKING:  # sentence_transformers: seconds to import, and an export needs none
    from sentence_transformers import SentenceTransformer

    from .explain import Explanation
    from .fill_mask import MaskFill
    from .inspection import Inspection
    from .runtime import FastModel
    from .trajectory import WordTrajectory

log = logging.getLogger("bertscope.encoder")


@dataclass(frozen=True)
class Encoded:
    """What one `encode_with_info` call produced."""

    vectors: np.ndarray  # (n, dim) float32
    truncated: int  # inputs longer than max_length tokens, cut by the model

class Encoder:
    """A sentence encoder plus what BERTScope needs around it.

    Two engines (DESIGN.md): what encodes — the torch `SentenceTransformer` or an export run by
    ONNX Runtime / OpenVINO (`FastModel`, see backends.py) — and the torch model itself, for
    attention maps, gradients and training, loaded on first use where encoding does not need it.

    `model` is the plain torch sentence-transformers model (training and benchmarks use it
    directly); `transformer` is its transformers `BertModel`-like module; `encoder_model` is
    what `encode` runs (`model` itself when `backend == "torch"`).
    """

    def __init__(
        self,
        model: SentenceTransformer | FastModel,
        *,
        name: str,
        path: str,
        languages: tuple[str, ...] = ("unknown",),
        backend: str = "torch",
        fidelity: float | None = 1.0,
        backend_note: str | None = None,
        fingerprint: str | None = None,
        torch_model: SentenceTransformer | None = None,
        load_torch: Callable[[], SentenceTransformer] | None = None,
    ) -> None:
        self.encoder_model = model
        self.name = name
        self.path = path
        self.languages = languages
        self.backend = backend  # what encodes: one of backends.BACKENDS
        self.fidelity = fidelity  # min cosine to torch fp32 measured at export; 1.0 for torch
        self.backend_note = backend_note  # why `auto` fell back from a faster backend, or None
        self._torch = model if backend == "torch" else torch_model
        self._load_torch = load_torch
        self._torch_lock = threading.Lock()
        if fingerprint is not None:
            self.__dict__["fingerprint"] = fingerprint  # known: the torch weights need no loading
        self._attn_lock = threading.Lock()

    # -- parts -----------------------------------------------------------------------------
    @property
    def model(self) -> SentenceTransformer:
        """The torch SentenceTransformer (loaded now if this encoder encodes with an export)."""
        if self._torch is None:
            with self._torch_lock:
                if self._torch is None:
                    if self._load_torch is None:
                        raise RuntimeError(f"{self.name}: no torch model to load")
                    log.info("%s: loading the torch model (attention, gradients, training)",
                             self.name)
                    model = self._load_torch()
                    model.max_seq_length = self.max_length
                    self._torch = model
        return self._torch

    @property
    def torch_loaded(self) -> bool:
        """Whether the torch model is in memory (always, on the torch backend)."""
        return self._torch is not None

    @property
    def tokenizer(self):
        return self.encoder_model.tokenizer

    @property
    def transformer(self) -> torch.nn.Module:
        return self.model[0].auto_model

    @property
    def max_length(self) -> int:
        return int(self.encoder_model.max_seq_length)

    @max_length.setter
    def max_length(self, value: int) -> None:
        """Cut inputs at `value` tokens, in every engine of this encoder."""
        self.encoder_model.max_seq_length = int(value)
        if self._torch is not None:
            self._torch.max_seq_length = int(value)

    @property
    def dim(self) -> int:
        return int(self.encoder_model.get_embedding_dimension())

    @property
    def prompts(self) -> dict[str, str]:
        return dict(self.encoder_model.prompts or {})

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
        extra = {"lengths": lengths} if self.backend != "torch" else {}
        vectors = self.encoder_model.encode(
            items,
            prompt=prefix or None,
            batch_size=batch_size,
            normalize_embeddings=normalize,
            show_progress_bar=show_progress,
            convert_to_numpy=True,
            **extra,
        )
        vectors = np.asarray(vectors, dtype=np.float32)
        broken = ~np.isfinite(vectors).all(axis=1)
        if broken.any():
            from .errors import BrokenModelError

            raise BrokenModelError(
                f"model {self.name} gives vectors that are not finite numbers (NaN or infinity) "
                f"for {int(broken.sum()):,} of {len(items):,} texts: its weights are broken (a "
                "fine-tune that diverged, e.g. too high a learning rate); nothing was indexed or "
                "answered with them: use another model, or train again with a lower --lr")
        return Encoded(vectors, truncated)

    def token_lengths(self, texts: Sequence[str], *, prompt: str | None = None) -> list[int]:
        """Untruncated token counts (specials included) of `texts` with the prompt's prefix."""
        if not texts:
            return []
        prefix = self.prompt_prefix(prompt)
        with tokenizer_lock(self.tokenizer):  # another thread may be padding a batch with it
            ids = self.tokenizer(
                [prefix + t for t in texts], add_special_tokens=True, truncation=False,
                verbose=False,
            )["input_ids"]
        return [len(x) for x in ids]

    # -- introspection ---------------------------------------------------------------------
    @contextmanager
    def eager_attention(self):
        """Run the transformer with eager attention (SDPA returns no attention maps), in eval
        mode (dropout off: attention rows sum to 1)."""
        with self._attn_lock, eval_mode(self.transformer) as model:
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
                prompt_a: str | None = None, prompt_b: str | None = None,
                progress: Callable[[int, int], None] | None = None) -> Explanation:
        """Why `a` and `b` get their cosine: see `encoder.explain.explain`."""
        from .explain import explain

        return explain(self, a, b, method=method, steps=steps, prompt_a=prompt_a,
                       prompt_b=prompt_b, progress=progress)

    # -- identity --------------------------------------------------------------------------
    @cached_property
    def fingerprint(self) -> str:
        """Stable hash of the torch model's config, pooling and weights (the same whichever
        backend encodes: exports are keyed by it)."""
        return model_fingerprint(self.model)

    @cached_property
    def info(self) -> EncoderInfo:
        if self.backend == "torch":
            cfg, architecture = self.transformer.config, type(self.transformer).__name__
        else:
            cfg = self.encoder_model.config
            architecture = (getattr(cfg, "architectures", None) or ["unknown"])[0]
        return EncoderInfo(
            name=self.name,
            path=self.path,
            architecture=architecture,
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
        from .heads_meta import heads_folder, read_meta  # no torch: an exported encoder's info

        return read_meta(heads_folder(self)) is not None

    def _pooling_mode(self) -> str:
        if self.backend == "torch":
            return pooling_mode(self.encoder_model)
        return self.encoder_model.pooling

    def __repr__(self) -> str:
        return f"Encoder(name={self.name!r}, path={self.path!r}, backend={self.backend!r})"
