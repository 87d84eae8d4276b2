"""Documents, chunks and vectors as Milvus rows, and back as `Document`s.

A chunk's id is a 63-bit hash of (document id, chunk number): writers on several processes or
machines need no shared counter, and re-adding a document reuses its ids."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import xxhash

from common.documents import chunk_metadata
from common.lexical import tokenize
from common.metadata import value_problem

from ..chunking import Chunk
from ..documents import Document
from .columns import Columns, row_values
from .schema import ID_BYTES, PART_CHARS, PLACEHOLDER, TEXT_BYTES

# Milvus's analyzer splits words at apostrophes, so a token such as "don't" is stored with its
# apostrophe as word characters: ' as "_", ’ as "__" (common.lexical's tokens hold no "_", so
# this reads back exactly). Indexes written before `TOKEN_ENCODING` 2 stored both as "_".
TOKEN_ENCODING = 2
_ENCODE = {1: str.maketrans({"'": "_", "’": "_"}), 2: {ord("'"): "_", ord("’"): "__"}}


def chunk_id(doc_id: str, chunk_no: int) -> int:
    return xxhash.xxh64_intdigest(f"{doc_id}\x00{chunk_no}".encode()) & (2**63 - 1)


def encode_tokens(tokens: str, encoding: int = TOKEN_ENCODING) -> str:
    """BM25 tokens joined by spaces (common.lexical's) as Milvus stores them."""
    return tokens.translate(_ENCODE[encoding])


def stored_tokens(text: str, encoding: int) -> str:
    """Stored tokens back as common.lexical wrote them (lossy for encoding 1: ’ reads as ')."""
    if encoding >= 2:
        text = text.replace("__", "’")
    return text.replace("_", "'")


def token_text(text: str, encoding: int = TOKEN_ENCODING) -> str:
    """`text`'s BM25 tokens (common.lexical's) as one string Milvus's analyzer splits back."""
    return encode_tokens(" ".join(tokenize(text)), encoding)


def token_encoding(manifest: dict) -> int:
    """How an index's stored tokens are written (1 for indexes that predate the record)."""
    return int(manifest.get("token_encoding", 1))


def _too_big(value: str, limit: int, what: str, doc_id: str) -> str | None:
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > limit:
        return (f"document {doc_id[:80]!r}: its {what} is {size:,} bytes; the Milvus store "
                f"holds at most {limit:,}")
    return None


def _fits(value: str, limit: int, what: str, doc_id: str) -> str:
    problem = _too_big(value, limit, what, doc_id)
    if problem:
        raise ValueError(problem)
    return value


def unfit(doc: Document, chunks: Sequence[tuple[int, int, str]]) -> str | None:
    """Why `doc`, with its chunks' (start, end, BM25 tokens), cannot be written as Milvus rows,
    naming the document and the limit; None when it can (what a migration checks of every
    document before it writes any)."""
    problem = (_too_big(doc.id, ID_BYTES, "id", doc.id)
               or _too_big(doc.title, TEXT_BYTES, "title", doc.id))
    for start, end, tokens in chunks:
        problem = problem or _too_big(doc.text[start:end], TEXT_BYTES,
                                      f"chunk text at {start:,}-{end:,}", doc.id) \
            or _too_big(tokens, TEXT_BYTES, "chunk tokens", doc.id)
    for key, value in doc.metadata.items():
        problem = problem or (f"document {doc.id[:80]!r}: metadata field {key!r}: "
                              f"{value_problem(value)}" if value_problem(value) else None)
    return problem


def chunk_rows(docs: Sequence[Document] | Mapping[str, Document], chunks: Sequence[Chunk],
               vectors: np.ndarray, encoding: int = TOKEN_ENCODING,
               lex: Sequence[str] | None = None, columns: Columns | None = None) -> list[dict]:
    """The rows of `chunks` (their documents among `docs`: a list, or {id: Document} for a
    build that makes its rows a batch at a time); tokens written in `encoding`. A chunk row's
    metadata is its document's without the layout, with the chunk's page and section
    (`chunk_metadata`, as the folder store's hits have it): hits read it as it is, and filters
    too, but for the fields with typed `columns` (`columns.py`), filled from it."""
    by_id = docs if isinstance(docs, Mapping) else {d.id: d for d in docs}
    rows = []
    for i, (chunk, vector) in enumerate(zip(chunks, vectors, strict=True)):
        doc = by_id[chunk.doc_id]
        text = doc.text[chunk.start:chunk.end]
        metadata = chunk_metadata(doc.metadata, chunk.start)
        rows.append({"chunk_id": chunk_id(doc.id, chunk.chunk_no), "doc_id": doc.id,
                     "chunk_no": chunk.chunk_no, "char_start": chunk.start,
                     "char_end": chunk.end,
                     "title": _fits(doc.title, TEXT_BYTES, "title", doc.id),
                     "text": _fits(text, TEXT_BYTES, "chunk text", doc.id),
                     "tokens": _fits(token_text(chunk.encoded, encoding) if lex is None
                                     else encode_tokens(lex[i], encoding), TEXT_BYTES,
                                     "chunk tokens", doc.id),
                     "vector": vector.tolist(), "metadata": metadata,
                     **row_values(metadata, columns or {})})
    return rows


def document_rows(docs: Sequence[Document]) -> list[dict]:
    rows = []
    for doc in docs:
        _fits(doc.id, ID_BYTES, "id", doc.id)
        parts = [doc.text[i:i + PART_CHARS] for i in range(0, len(doc.text), PART_CHARS)] or [""]
        for no, part in enumerate(parts):
            rows.append({"key": f"{doc.id}#{no}", "doc_id": doc.id, "part": no,
                         "parts": len(parts), "title": _fits(doc.title, TEXT_BYTES, "title",
                                                             doc.id),
                         "text": part, "metadata": doc.metadata if no == 0 else {},
                         "placeholder": PLACEHOLDER})
    return rows


DOCUMENT_FIELDS = ["doc_id", "part", "parts", "title", "text", "metadata"]


def documents_of(rows: Sequence[dict]) -> dict[str, Document]:
    """{doc_id: Document} from document rows (all parts of each)."""
    parts: dict[str, list[dict]] = {}
    for row in rows:
        parts.setdefault(row["doc_id"], []).append(row)
    out = {}
    for doc_id, got in parts.items():
        got.sort(key=lambda r: r["part"])
        if len(got) != got[0]["parts"]:
            continue  # a document being rewritten by another writer: not whole yet
        out[doc_id] = Document(doc_id, "".join(r["text"] for r in got), got[0]["title"],
                               dict(got[0]["metadata"] or {}))
    return out
