"""The sentence embedding as a function of the word-embedding layer's output, on the torch model.

Explanations differentiate through it, so it refuses models that cannot give gradients.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from ..modes import eval_mode
from .side import ExplainError

if TYPE_CHECKING:
    from ..protocol import EncoderLike

EmbedFn = Callable[[torch.Tensor], torch.Tensor]  # (B, T, H) word embeddings -> (B, D) unit rows


def check_torch(encoder: EncoderLike) -> torch.nn.Embedding:
    """The word-embedding layer of `encoder`'s torch model, or `ExplainError` saying why not."""
    model = encoder.model  # the torch SentenceTransformer (loaded on demand where encoding isn't)
    backend = getattr(model, "backend", "torch")
    if backend != "torch":
        raise ExplainError(
            f"{encoder.name!r} runs on the {backend!r} backend, which gives no gradients: "
            "explain with the torch model (load_encoder(..., backend='torch'))")
    quantised = [type(m).__name__ for m in model.modules() if "quantiz" in type(m).__module__]
    if quantised:
        raise ExplainError(
            f"{encoder.name!r} holds quantised modules ({quantised[0]}), which give no "
            "gradients: explain with the float torch model")
    embeddings = encoder.transformer.get_input_embeddings()
    if not isinstance(embeddings, torch.nn.Embedding) or not embeddings.weight.is_floating_point():
        raise ExplainError(f"{encoder.name!r} has no float word-embedding layer to explain from")
    return embeddings


@contextmanager
def embed_fn(encoder: EncoderLike) -> Iterator[EmbedFn]:
    """Yield f(word embeddings (B, T, H)) -> unit sentence embeddings (B, D), run with
    eager attention, in eval mode, through the model's own pooling modules."""
    st = encoder.model
    modules = list(st)[1:]  # pooling, dense, normalize ...: what follows the transformer
    with eval_mode(st), encoder.eager_attention() as transformer:
        def f(embeds: torch.Tensor) -> torch.Tensor:
            mask = torch.ones(embeds.shape[:2], dtype=torch.long)  # (B, T): no padding
            hidden = transformer(inputs_embeds=embeds, attention_mask=mask)[0]  # (B, T, H)
            features = {"token_embeddings": hidden, "attention_mask": mask}
            for module in modules:
                features = module(features)
            return F.normalize(features["sentence_embedding"], dim=-1)  # (B, D)
        yield f
