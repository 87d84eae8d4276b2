"""The two collections of a Milvus index and how their vectors are indexed.

    NAME            one row a chunk: chunk_id (primary), doc_id, chunk_no, char_start, char_end,
                    title, text (the chunk's span), tokens (its BM25 tokens), sparse (made from
                    tokens by Milvus's BM25 function), vector, metadata (the document's, JSON)
    NAME_documents  one row per part of a document (text longer than a VARCHAR is split):
                    key (primary), doc_id, part, parts, title, text, metadata, and a 2-d
                    placeholder vector (Milvus requires one vector field in every collection)

The manifest lives in NAME's collection properties (`manifest.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..presets import Spec
from . import columns as filter_columns
from .columns import Columns

ID_BYTES = 1024  # longest document id, in UTF-8 bytes
TEXT_BYTES = 65535  # Milvus's VARCHAR limit
PART_CHARS = 16_000  # a document text part: at most 4 bytes a character, within TEXT_BYTES
PLACEHOLDER = [0.0, 1.0]


@dataclass(frozen=True)
class IndexType:
    preset: str
    milvus: dict  # add_index keyword arguments for the vector field
    knobs: dict[str, int]  # search knobs, as the folder store's presets name them

    @property
    def spec(self) -> Spec:
        params = ",".join(f"{k}={v}" for k, v in self.milvus.get("params", {}).items())
        return Spec(self.preset, f"milvus {self.milvus['index_type']}"
                    + (f" {params}" if params else ""), dict(self.knobs))


INDEX_TYPES = {
    "flat": IndexType("flat", {"index_type": "FLAT", "metric_type": "IP"}, {}),
    "hnsw": IndexType("hnsw", {"index_type": "HNSW", "metric_type": "IP",
                               "params": {"M": 32, "efConstruction": 200}}, {"efSearch": 256}),
}
PRESETS = ("auto", *INDEX_TYPES)
AUTO_FLAT_UP_TO = 20_000  # chunks: exact search while it is cheap (as the folder store's auto)


def index_type(preset: str, n_chunks: int) -> IndexType:
    if preset == "auto":
        preset = "flat" if n_chunks <= AUTO_FLAT_UP_TO else "hnsw"
    if preset not in INDEX_TYPES:
        raise ValueError(f"Invalid Milvus index preset {preset!r}. Valid: {', '.join(PRESETS)}")
    return INDEX_TYPES[preset]


def documents_collection(name: str) -> str:
    return f"{name}_documents"


def create_collections(client, name: str, dim: int, kind: IndexType | None, bm25: dict,
                       properties: dict[str, str], columns: Columns | None = None, *,
                       lite: bool = False) -> None:
    """Create NAME and NAME_documents (both absent), indexed and loaded, NAME with the typed
    metadata `columns` (`columns.plan`; on milvus-lite, `lite`, not indexed:
    `columns.add_indexes`). With `kind` None, NAME is created bare (no index, not loaded) for
    writers to fill first: `index_chunks` then indexes and loads it (a build into Milvus whose
    index type waits on its chunk count)."""
    from pymilvus import DataType, Function, FunctionType, MilvusClient

    s = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("chunk_id", DataType.INT64, is_primary=True)
    s.add_field("doc_id", DataType.VARCHAR, max_length=ID_BYTES)
    s.add_field("chunk_no", DataType.INT64)
    s.add_field("char_start", DataType.INT64)
    s.add_field("char_end", DataType.INT64)
    s.add_field("title", DataType.VARCHAR, max_length=TEXT_BYTES)
    s.add_field("text", DataType.VARCHAR, max_length=TEXT_BYTES)
    # tokens are common.lexical's (stemmed, jieba for Chinese), joined by spaces: the standard
    # analyzer (\w+, lowercase) splits them back as they were, so Milvus's BM25 sees our terms
    s.add_field("tokens", DataType.VARCHAR, max_length=TEXT_BYTES, enable_analyzer=True,
                analyzer_params={"tokenizer": "standard"})
    s.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    s.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
    s.add_field("metadata", DataType.JSON)
    filter_columns.add_fields(s, columns or {})
    s.add_function(Function(name="bm25", function_type=FunctionType.BM25,
                            input_field_names=["tokens"], output_field_names=["sparse"]))
    if kind is None:
        client.create_collection(name, schema=s, consistency_level="Strong",
                                 properties=properties)
    else:
        _create(client, name, s, _chunk_indexes(client, kind, bm25, columns, lite),
                properties=properties)

    d = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    d.add_field("key", DataType.VARCHAR, is_primary=True, max_length=ID_BYTES + 16)
    d.add_field("doc_id", DataType.VARCHAR, max_length=ID_BYTES)
    d.add_field("part", DataType.INT64)
    d.add_field("parts", DataType.INT64)
    d.add_field("title", DataType.VARCHAR, max_length=TEXT_BYTES)
    d.add_field("text", DataType.VARCHAR, max_length=TEXT_BYTES)
    d.add_field("metadata", DataType.JSON)
    d.add_field("placeholder", DataType.FLOAT_VECTOR, dim=len(PLACEHOLDER))
    dp = client.prepare_index_params()
    dp.add_index(field_name="placeholder", index_type="FLAT", metric_type="IP")
    _create(client, documents_collection(name), d, dp)


def index_chunks(client, name: str, kind: IndexType, bm25: dict,
                 columns: Columns | None = None, *, lite: bool = False) -> None:
    """Index and load NAME, created bare by `create_collections(kind=None)` and filled."""
    client.create_index(name, _chunk_indexes(client, kind, bm25, columns, lite), sync=False)
    client.load_collection(name)


def _chunk_indexes(client, kind: IndexType, bm25: dict, columns: Columns | None, lite: bool):
    ip = client.prepare_index_params()
    filter_columns.add_indexes(ip, columns or {}, lite=lite)
    ip.add_index(field_name="vector", **kind.milvus)
    ip.add_index(field_name="sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                 params={"bm25_k1": bm25["k1"], "bm25_b": bm25["b"]})
    return ip


def _create(client, name: str, schema, index_params, **kwargs) -> None:
    """Create, index and load. `sync=False`: pymilvus would otherwise poll the index state with
    a timestamp milvus-lite cannot allocate (logged there as a server traceback); loading
    waits for the index either way."""
    client.create_collection(name, schema=schema, consistency_level="Strong", **kwargs)
    client.create_index(name, index_params, sync=False)
    client.load_collection(name)


def replace_collections(client, staging: str, name: str) -> None:
    """The staging pair `staging` (+ _documents) renamed to `name` (+ _documents), dropping
    the pair it replaces: the last step of a build or a migration into Milvus."""
    for old, new in ((staging, name), (documents_collection(staging), documents_collection(name))):
        if client.has_collection(new):
            client.drop_collection(new)
        client.rename_collection(old, new)
        client.load_collection(new)  # searchable at once, by indexes opened before too
