"""Request bodies (pydantic: what /docs and the OpenAPI schema show). Bounds that the server's
`Limits` set at start-up are checked by the routes, so their errors name the limit; the schema
states them too (service/openapi.py writes the configured values in).

Every body is strict (`k: true` is not k=1, `"5"` is not 5), holds only valid Unicode (a lone
surrogate, JSON `"\\ud800"`, is refused naming where it is) and nests at most MAX_DEPTH levels."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from common.text import lone_surrogate, surrogate_note

Mode = Literal["dense", "bm25", "lexical", "hybrid"]
Fusion = Literal["rrf", "minmax", "zscore"]

# JSON Schema for "weights and fusion apply to a hybrid search only"
_HYBRID_ONLY = [{"properties": {"mode": {"const": "hybrid"}}, "required": ["mode"]},
                {"properties": {"weights": {"type": "null"}, "fusion": {"type": "null"}}}]


def _whole(value):
    """JSON Schema's integers include 90.0: take it as 90 (strict mode would refuse it); `true`
    and "90" stay refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


Int = Annotated[int, BeforeValidator(_whole)]


MAX_DEPTH = 32  # arrays and objects in a body: no field of the API needs more than a few


def body_problem(body: Any) -> str | None:
    """What makes `body` unfit to keep or answer with, said with its place (`documents[0].text`):
    a string (or key) that is not valid Unicode, or nesting past MAX_DEPTH (stored metadata is
    sent back in every hit, and orjson writes at most 254 levels: a deeper value would break
    each later search that finds its document). None when it is fine. Iterative: a body nested
    as deep as the JSON reader allows does not exhaust Python's stack here."""
    stack = [(body, "", 0, None)]  # (value, where, depth, the id of the object it is in)
    while stack:
        value, where, depth, owner = stack.pop()
        if isinstance(value, str):
            at = lone_surrogate(value)
            if at is not None:
                of = f" (id {owner!r})" if owner else ""
                return f"{where or 'the body'}{of} {surrogate_note(value, at)}"
        elif isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                return (f"{where} nests arrays or objects more than {MAX_DEPTH} levels deep; "
                        "no field of the API needs more: send a flatter value")
            if isinstance(value, dict):
                if isinstance(value.get("id"), str) and lone_surrogate(value["id"]) is None:
                    owner = value["id"]  # a document: its messages name it
                items = [(item, f"{where}.{key}" if where else str(key)) for key, item in
                         value.items()]
                stack += [(key, f"a key of {where or 'the body'}", depth, owner)
                          for key in value]
            else:
                items = [(item, f"{where}[{i}]") for i, item in enumerate(value)]
            stack += [(item, place, depth + 1, owner) for item, place in reversed(items)]
    return None


class Body(BaseModel):
    """A request body: strict types, valid Unicode, not too deep, a misspelt field an error."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _fit(cls, value):
        if isinstance(value, dict):
            value = cls._known(value)
        found = body_problem(value)
        if found:
            raise PydanticCustomError("unfit_body", found)
        return value


    @classmethod
    def _known(cls, value: dict) -> dict:
        """`value` with only the fields this model has: unknown ones are one error naming a
        few (pydantic would make one error each, for every one of thousands) or, where the
        model accepts extras, dropped unread."""
        unknown = [key for key in value if key not in cls.model_fields]
        if not unknown:
            return value
        if cls.model_config.get("extra") == "allow":
            return {key: item for key, item in value.items() if key in cls.model_fields}
        named = ", ".join(repr(str(key)[:40]) for key in unknown[:5])
        more = f" and {len(unknown) - 5:,} more" if len(unknown) > 5 else ""
        raise PydanticCustomError(
            "unknown_fields", f"unknown field{'s' if len(unknown) > 1 else ''} {named}{more}; "
            f"the fields here are: {', '.join(cls.model_fields)} (see /docs)")


class EmbeddingsRequest(Body):
    """OpenAI's embeddings request; unknown fields (`user`, …) are accepted and ignored, as
    OpenAI-compatible servers do."""

    model_config = ConfigDict(extra="allow")
    input: str | list[str] = Field(description="a text or a list of texts")
    model: str = Field(description="a model name from GET /v1/models (an index's model, or a "
                                   "bundled one: minilm, e5-multilingual), or an index name")
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: Int | None = Field(None, description="accepted only if equal to the model's "
                                   "(GET /v1/models gives each model's `dim`)")
    input_type: Literal["query", "passage"] | None = Field(
        None, description="extension: the model's query or passage prompt (E5's 'query: ' / "
                          "'passage: '); none by default, as OpenAI clients send")

    @field_validator("input", mode="before")
    @classmethod
    def _text_not_token_ids(cls, value):
        """OpenAI also takes token ids; a BERT model reads only text: say what to set."""
        return texts_not_token_ids(value)


def texts_not_token_ids(value):
    """`value` (a text or a list of texts) as is; token ids (ints, lists of ints) and lists of
    lists of text are refused, each said as what it is."""
    if not isinstance(value, list):
        return value
    if value and all(isinstance(x, int) and not isinstance(x, bool) for x in value) or \
            any(isinstance(x, list) and x and all(isinstance(t, int) and not isinstance(t, bool)
                                                  for t in x) for x in value):
        raise PydanticCustomError(
            "token_ids", "token ids are not accepted, only text: the model has its own "
            "tokenizer (LangChain's OpenAIEmbeddings: set check_embedding_ctx_length=False)")
    for i, x in enumerate(value):
        if isinstance(x, list):
            raise PydanticCustomError(
                "nested_list", f"input[{i}] is a list; each input is one string: send "
                "[\"first text\", \"second text\"], not a list of lists")
    return value


class TokenizeRequest(Body):
    """Text to tokenize with a model's own tokenizer (as text-embeddings-inference's
    /tokenize)."""

    input: str | list[str] = Field(description="a text or a list of texts")
    model: str = Field(description="a model name from GET /v1/models, or an index name")
    input_type: Literal["query", "passage"] | None = Field(
        None, description="add the model's query or passage prompt first, as /v1/embeddings "
                          "does with it")
    add_special_tokens: bool = Field(True, description="include [CLS] / [SEP] (or <s> / </s>)")

    @field_validator("input", mode="before")
    @classmethod
    def _text_not_token_ids(cls, value):
        return texts_not_token_ids(value)


class Searching(Body):
    k: Int = Field(10, ge=1, description="hits per query")
    mode: Mode = Field("dense", description="dense (FAISS), bm25 (= lexical) or hybrid (both, "
                                            "fused)")
    fusion: Fusion | None = Field(None, description="hybrid only: how dense and BM25 scores "
                                  "are fused (default: the library's measured default)")
    weights: list[float] | None = Field(
        None, min_length=2, max_length=2, description="hybrid only: [dense, lexical] weights, "
        "finite, >= 0, at least one positive")
    filters: dict[str, Any] | None = Field(
        None, description="metadata filter: {field: value}, {field: {'in': [...]}}, "
                          "{field: {'gte': a, 'lt': b}}; fields combine with AND. The fields "
                          "are the index's own: a field it lacks is a 422 listing them")


class SearchRequest(Searching):
    model_config = ConfigDict(json_schema_extra={"allOf": [
        {"oneOf": [{"required": ["query"]}, {"required": ["queries"]}]},
        {"anyOf": _HYBRID_ONLY}]})
    query: str = Field(None, description="one query (or give `queries`)")
    queries: list[str] = Field(None, min_length=1,
                               description="a batch of queries, one encode call")
    highlight: bool = Field(False, description="add the query words' spans in each hit's text")
    per_chunk: bool = Field(False, description="hits per chunk instead of per document")


class ContextRequest(Searching):
    model_config = ConfigDict(json_schema_extra={"anyOf": [{"not": {"required": ["mode"]}},
                                                           *_HYBRID_ONLY]})
    query: str
    max_tokens: Int = Field(512, ge=1, description="token budget of the packed chunks, counted "
                                                  "with the index encoder's tokenizer")
    k: Int = Field(20, ge=1, description="candidate chunks retrieved before packing")
    mode: Mode = "hybrid"
    max_chunks_per_doc: Int = Field(2, ge=1)


class DocumentIn(Body):
    id: str
    text: str
    title: str = ""
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="the document's fields: a field keeps the type it "
        "has in the index (a write that would change it is refused); the product's own names "
        "(source, page, section, sha256, format, and any starting with _) are refused. "
        "`access`: the groups or principals that may read the document (a list of names; "
        "absent: every reader of the index), see docs/SECURITY.md")


class DocumentsRequest(Body):
    documents: list[DocumentIn]
    replace: bool = Field(True, description="replace documents whose id exists (upsert); false: "
                                            "an existing id is a 409 and nothing is written")


class DeleteRequest(Body):
    ids: list[str]


class ExplainRequest(Body):
    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["index"]},
                                                           {"required": ["model"]}]})
    query: str
    passage: str
    index: str = Field(None, description="explain with this index's encoder ...")
    model: str = Field(None, description="... or with this model's (one of the two)")
    method: Literal["occlusion", "integrated-jacobians"] = "occlusion"
    steps: Int = Field(16, ge=1, le=64, description="integrated-jacobians' integration points")
