"""Request bodies (pydantic: what /docs and the OpenAPI schema show). Bounds that the server's
`Limits` set at start-up are checked by the routes, so their errors name the limit."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Mode = Literal["dense", "bm25", "lexical", "hybrid"]
Fusion = Literal["rrf", "minmax", "zscore"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not ignored


class EmbeddingsRequest(BaseModel):
    """OpenAI's embeddings request; unknown fields (`user`, …) are accepted and ignored, as
    OpenAI-compatible servers do."""

    model_config = ConfigDict(extra="allow")
    input: str | list[str] = Field(description="a text or a list of texts")
    model: str = Field(description="a model name from GET /v1/models (an index's model, or a "
                                   "bundled one: minilm, e5-multilingual)")
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(None, description="accepted only if equal to the model's")
    input_type: Literal["query", "passage"] | None = Field(
        None, description="extension: the model's query or passage prompt (E5's 'query: ' / "
                          "'passage: '); none by default, as OpenAI clients send")

    @field_validator("input", mode="before")
    @classmethod
    def _text_not_token_ids(cls, value):
        """OpenAI also takes token ids; a BERT model reads only text: say what to set."""
        items = value if isinstance(value, list) else [value]
        if any(isinstance(x, (int, list)) and not isinstance(x, bool) for x in items):
            raise ValueError("token ids are not accepted, only text: the model has its own "
                             "tokenizer (LangChain's OpenAIEmbeddings: set "
                             "check_embedding_ctx_length=False)")
        return value


class Searching(Strict):
    k: int = Field(10, ge=1, description="hits per query")
    mode: Mode = Field("dense", description="dense (FAISS), bm25 (= lexical) or hybrid (both, "
                                            "fused)")
    fusion: Fusion | None = Field(None, description="hybrid: how dense and BM25 scores are "
                                  "fused (default: the library's measured default)")
    weights: list[float] | None = Field(None, description="hybrid: [dense, lexical] weights")
    filters: dict[str, Any] | None = Field(
        None, description="metadata filter: {field: value}, {field: {'in': [...]}}, "
                          "{field: {'gte': a, 'lt': b}}; fields combine with AND")


class SearchRequest(Searching):
    query: str | None = Field(None, description="one query (or give `queries`)")
    queries: list[str] | None = Field(None, description="a batch of queries, one encode call")
    highlight: bool = Field(False, description="add the query words' spans in each hit's text")
    per_chunk: bool = Field(False, description="hits per chunk instead of per document")


class ContextRequest(Searching):
    query: str
    max_tokens: int = Field(512, ge=1, description="token budget of the packed chunks, counted "
                                                  "with the index encoder's tokenizer")
    k: int = Field(20, ge=1, description="candidate chunks retrieved before packing")
    mode: Mode = "hybrid"
    max_chunks_per_doc: int = Field(2, ge=1)


class DocumentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    text: str
    title: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


class DocumentsRequest(Strict):
    documents: list[DocumentIn]
    replace: bool = Field(True, description="replace documents whose id exists (upsert); false: "
                                            "an existing id is a 409 and nothing is written")


class DeleteRequest(Strict):
    ids: list[str]


class ExplainRequest(Strict):
    query: str
    passage: str
    index: str | None = Field(None, description="explain with this index's encoder ...")
    model: str | None = Field(None, description="... or with this model's (one of the two)")
    method: Literal["occlusion", "integrated-jacobians"] = "occlusion"
    steps: int = Field(16, ge=1, le=64, description="integrated-jacobians' integration points")
