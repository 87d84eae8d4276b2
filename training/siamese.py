"""The Siamese Sentence-BERT: one shared BERT transformer + a freshly built pooling + normalisation.

Both sentences of a pair go through the same weights (sentence-transformers runs each text column
through the one model). The pooling module is always rebuilt here, never inherited from the source
folder, so `cls`, `mean` and `max` are compared on the same transformer weights.
"""

from __future__ import annotations

from pathlib import Path

from sentence_transformers import SentenceTransformer
from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

from .errors import TrainingError
from .pooling import check_pooling


def build_siamese(
    model: str | Path,
    *,
    pooling: str = "mean",
    max_seq_length: int | None = None,
    normalize: bool = True,
) -> SentenceTransformer:
    """A new sentence-transformers model from the transformer of `model` (a bundled name or folder).

    Only the first module (the transformer and its tokenizer) is kept; pooling (and normalisation)
    are new. The source's prompts (e5's "query: "/"passage: ") carry over.
    """
    check_pooling(pooling)
    source = _load_source(model)
    transformer = source[0]
    if not isinstance(transformer, Transformer):
        raise TrainingError(
            f"{model}: first module is {type(transformer).__name__}, not a Transformer"
        )
    if max_seq_length is not None:
        if max_seq_length < 8:
            raise TrainingError(f"max length must be at least 8 tokens, got {max_seq_length}")
        limit = getattr(transformer.auto_model.config, "max_position_embeddings", None)
        if limit and max_seq_length > limit:
            raise TrainingError(f"--max-length {max_seq_length} is more than {model} can read "
                                f"({limit} positions): use --max-length {limit} or less")
        transformer.max_seq_length = max_seq_length
    dim = transformer.get_embedding_dimension()
    modules = [transformer, Pooling(dim, pooling_mode=pooling)]
    if normalize:
        modules.append(Normalize())
    return SentenceTransformer(
        modules=modules,
        device="cpu",
        prompts=dict(source.prompts or {}),
        similarity_fn_name="cosine",
    )


def freeze_word_embeddings(model: SentenceTransformer) -> int:
    """Stop training the token-embedding matrix; returns how many weights were frozen.

    With a 250k-piece vocabulary (e5) that matrix is most of the model: freezing it makes each
    CPU step much cheaper and keeps rare pieces, unseen in a small training set, where they were.
    """
    embeddings = model[0].auto_model.get_input_embeddings()
    embeddings.weight.requires_grad_(False)
    return embeddings.weight.numel()


def pooling_mode(model: SentenceTransformer) -> str:
    for module in model:
        if isinstance(module, Pooling):
            mode = module.pooling_mode
            return mode if isinstance(mode, str) else "+".join(mode)
    return "none"


def _load_source(model: str | Path) -> SentenceTransformer:
    from encoder import EncoderNotFoundError, load_encoder

    try:
        return load_encoder(model, backend="torch").model  # training needs the torch model
    except (EncoderNotFoundError, ValueError) as exc:  # not a model, "" (None: a TypeError)
        raise TrainingError(str(exc)) from exc
