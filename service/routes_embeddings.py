"""OpenAI-compatible embeddings (and the model list clients ask for), and explanations: drivers
over `Encoder.encode` (through the shared, batching encoder) and `Encoder.explain`."""

from __future__ import annotations

import base64
import math

import numpy as np
from fastapi import APIRouter, Request, Response

from .access import may, require
from .errors import ApiError
from .inline import Inline
from .openapi import BODY, LIMITED, errors
from .schemas import EmbeddingsRequest, ExplainRequest, TokenizeRequest
from .shared import check_count, check_given, check_texts_length, json_response, service_of

router = APIRouter()
EXPLAIN_PASSAGE_CHARS = 2000  # integrated Jacobians grow with the passage: keep a call short


@router.get("/v1/models", tags=["embeddings"], responses=errors(*LIMITED))
def models(request: Request) -> dict:
    """OpenAI's model list: every model an index under the root uses, and the bundled ones
    (with `--keys`, `indexes` names only those the caller may read)."""
    found = service_of(request).indexes.models()
    return {"object": "list", "data": [
        {"id": m, "object": "model", "owned_by": "bertscope",
         "indexes": [n for n in names if may(request, "read", n)]} for m, names in found.items()]}


TEXTS = errors(*BODY, *LIMITED, 404, 503)


def _check_model(request: Request, model: str) -> None:
    """With `--keys`, an index's name used as a model name is an unknown model to a caller who
    may not read that index (the same 404), so it cannot tell which names are indexes."""
    indexes = service_of(request).indexes
    if service_of(request).gate.keys is None or may(request, "read", model):
        return
    if model in indexes.names() and model not in indexes.models():
        raise indexes.unknown_model(model)
EMBEDDINGS = "/v1/embeddings"


def _texts(body, request: Request) -> list[str]:
    """`body.input` as a list of texts, each checked (count, length, something visible)."""
    limits = service_of(request).config.limits
    texts = [body.input] if isinstance(body.input, str) else list(body.input)
    if not texts:
        raise ApiError(422, "input is an empty list: give at least one text")
    check_count(len(texts), limits.max_inputs, "inputs", "max_inputs")
    one = isinstance(body.input, str)
    check_texts_length(texts, limits.max_text_chars, "input", "max_text_chars", one=one)
    check_given(texts, "input", one=one)
    return texts


@router.post(EMBEDDINGS, tags=["embeddings"], response_model=dict, responses=TEXTS)
async def embeddings(body: EmbeddingsRequest, request: Request) -> Response:
    """OpenAI's `/v1/embeddings`: unit vectors as float lists or base64 (little-endian
    float32); `usage.prompt_tokens` counts the tokens the model read (at most its window per
    input). `input_type` (extension) adds the model's query or passage prompt."""
    texts = _texts(body, request)
    indexes = service_of(request).indexes
    _check_model(request, body.model)
    light = Inline.light(texts) and indexes.model_loaded(body.model)
    return await service_of(request).inline.answer(
        (EMBEDDINGS, body.model), lambda: _embeddings(body, texts, indexes.model_encoder(
            body.model)), light=light)


def _embeddings(body: EmbeddingsRequest, texts: list[str], enc) -> Response:
    if body.dimensions is not None and body.dimensions != enc.dim:
        raise ApiError(422, f"dimensions={body.dimensions}: {body.model} makes {enc.dim}-"
                            "dimensional vectors and cannot shorten them; leave it out")
    vectors = enc.encode(texts, prompt=body.input_type)
    tokens = sum(min(n, enc.max_length) for n in enc.token_lengths(texts, prompt=body.input_type))
    data = [{"object": "embedding", "index": i, "embedding": _encoded(v, body.encoding_format)}
            for i, v in enumerate(vectors)]
    return json_response({"object": "list", "data": data, "model": body.model,
                          "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})


def _encoded(vector: np.ndarray, encoding_format: str):
    if encoding_format == "base64":
        return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")
    return vector


@router.post("/v1/tokenize", tags=["embeddings"], response_model=dict, responses=TEXTS)
def tokenize(body: TokenizeRequest, request: Request) -> Response:
    """Each text through the model's own tokenizer (as the model reads it, untruncated):
    every token's id, text, character offsets in the input (null for special and prompt
    tokens), whether it is special or the prompt's; `model_reads`: the first tokens the model
    reads (it cuts at its window)."""
    from encoder import tokenize as run

    texts = _texts(body, request)
    _check_model(request, body.model)
    enc = service_of(request).indexes.model_encoder(body.model)
    found = run(enc, texts, prompt=body.input_type, add_special_tokens=body.add_special_tokens)
    data = [{"index": i, "tokens": [t.__dict__ for t in one.tokens], "count": len(one.tokens),
             "model_reads": one.model_reads} for i, one in enumerate(found)]
    return json_response({"object": "list", "data": data, "model": body.model})


@router.post("/v1/explain", tags=["explain"], responses=errors(*BODY, *LIMITED, 400, 404, 503))
def explain(body: ExplainRequest, request: Request) -> dict:
    """Why `query` and `passage` get their cosine, word by word (`Encoder.explain`, on the
    torch model, with the query and passage prompts): `occlusion` (each word's drop in cosine
    when deleted, about a second) or `integrated-jacobians` (exact, word × word, slower)."""
    svc = service_of(request)
    if (body.index is None) == (body.model is None):
        raise ApiError(422, "give `index` (explain with its encoder) or `model`, one of the two")
    if body.index is not None:
        require(request, "read", body.index)  # from the name, before the index is looked up
    check_texts_length([body.query], svc.config.limits.max_query_chars, "query",
                       "max_query_chars", one=True)
    check_texts_length([body.passage], EXPLAIN_PASSAGE_CHARS, "passage",
                       "explain's passage limit", one=True)
    check_given([body.query], "query", one=True)
    check_given([body.passage], "passage", one=True)
    if body.index is not None:
        enc = svc.indexes.get(body.index).encoder
    else:
        _check_model(request, body.model)
        enc = svc.indexes.model_encoder(body.model)
    ij = body.method == "integrated-jacobians"
    e = enc.explain(body.query, body.passage, method=body.method, steps=body.steps if ij else 0,
                    prompt_a="query", prompt_b="passage")
    return {"method": e.method, "score": _number(e.score), "target": _number(e.target),
            "error": _number(e.error), "steps": e.steps, "backend": enc.backend,
            "query_words": _words(e.words_a, e.word_scores_a),
            "passage_words": _words(e.words_b, e.word_scores_b),
            "word_matrix": [[_number(x) for x in row] for row in np.asarray(e.word_matrix)]}


def _words(groups, scores) -> list[dict]:
    return [{"word": g.word, "start": g.start, "end": g.end, "share": _number(s)}
            for g, s in zip(groups, np.asarray(scores), strict=True)]


def _number(x) -> float | None:
    """JSON has no NaN: a value nothing promises (occlusion's target) is null."""
    x = float(x)
    return x if math.isfinite(x) else None
