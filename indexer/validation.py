"""Argument checks for the indexer's public calls. Pure functions: each returns the cleaned value
or raises a `TypeError` (wrong type) / `ValueError` (wrong value) that names the argument, the
offending item and what would be accepted. `SemanticIndex` and `build_index` call them first."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from common.corpus import Document
from common.documents import FileDocument
from common.metadata import is_reserved, kind_problem, range_problem, reserved_problem, type_problem
from common.text import INVISIBLE_NOTE, has_visible_text, lone_surrogate, surrogate_note

from .access import ACCESS, check_access
from .errors import CorpusError, QueryError
from .presets import PRESETS

DOCUMENT_KEYS = ("id", "text", "title", "metadata")
# a document text in one library write: a bound against absurd input (a 2,500-page book fits),
# not a size users meet; HTTP writes are held to the service's own, documented 100,000
# (`service.ServiceConfig.max_text_chars`)
MAX_TEXT_CHARS = 10_000_000


def _kind(value: Any) -> str:
    return type(value).__name__


def check_doc_id(value: Any, where: str = "id") -> str:
    """A document id: a non-empty string, or an integer (stored as its decimal string)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"{where} must be a string (or an integer), got {value!r} "
                        f"({_kind(value)})")
    text = str(value)
    if not text.strip():
        raise ValueError(f"{where} is empty: give every document a non-empty id")
    if (at := lone_surrogate(text)) is not None:
        raise ValueError(f"{where} {surrogate_note(text, at)}")
    return text


def check_doc_ids(doc_ids: Any, what: str = "doc_ids") -> list[str]:
    """A list of document ids; a lone string is refused (it is not a list of its characters)."""
    if isinstance(doc_ids, (str, bytes)):
        raise TypeError(f"{what} must be a list of ids, not a single string: "
                        f"use [{doc_ids!r}]")
    if not isinstance(doc_ids, Iterable) or isinstance(doc_ids, dict):
        raise TypeError(f"{what} must be a list of ids, got {_kind(doc_ids)}")
    return [check_doc_id(d, f"{what}[{i}]") for i, d in enumerate(doc_ids)]


def check_metadata(metadata: Any, where: str = "metadata", who: str = "", *,
                   own: bool = False) -> dict[str, Any]:
    """A dict of str keys to JSON values (integers within 64 bits: `common.metadata`). Filters
    and pick lists use the str / int / float / bool ones; lists and dicts are kept and shown,
    never matched. No reserved name (`source`, `page`, `_layout`…: `common.metadata`) unless
    `own` (a document the product read from a file). `access` is checked and kept as a sorted
    list of names (`indexer.access.check_access`). `who` starts the messages."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise TypeError(f"{who}{where} must be a dict of field -> value, got {_kind(metadata)}")
    for key, value in metadata.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"{who}{where} keys must be non-empty strings, got {key!r}")
        if (at := lone_surrogate(key)) is not None:
            raise ValueError(f"{who}{where} key {key!r} {surrogate_note(key, at)}")
        if not own and is_reserved(key):
            raise ValueError(f"{who}{where} key {reserved_problem(key)}")
        problem = type_problem(value)
        if problem:
            raise TypeError(f"{who}{where}[{key!r}] is {_shown(value)}: {problem}")
        problem = range_problem(value)
        if problem:
            raise ValueError(f"{who}{where}[{key!r}] is {_shown(value)}: {problem}")
    out = dict(metadata)
    if ACCESS in out and out[ACCESS] is None:  # a corpus's empty cell: every reader
        del out[ACCESS]
    if ACCESS in out:
        try:
            out[ACCESS] = check_access(out[ACCESS], f"{where}[{ACCESS!r}]")
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{who}{exc}") from None
    return out


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def check_document_fields(item: dict, where: str, *, own: bool = False
                          ) -> tuple[str, str, str, dict[str, Any]]:
    """(id, text, title, metadata) of a document dict, each checked; errors after the id name
    it first ("document 'a': documents[3]['text'] is empty"). `own`: a file's document, whose
    reserved metadata the product wrote (`check_metadata`)."""
    unknown = [k for k in item if k not in DOCUMENT_KEYS]
    if unknown:
        raise ValueError(f"{where} has unknown keys {', '.join(map(repr, unknown))}: a document "
                         f"takes {', '.join(DOCUMENT_KEYS)} (put other fields in 'metadata')")
    missing = [k for k in ("id", "text") if k not in item]
    if missing:
        raise ValueError(f"{where} has no {' or '.join(map(repr, missing))} key: a document "
                         "needs 'id' and 'text'")
    doc_id = check_doc_id(item["id"], f"{where}['id']")
    who = f"document {doc_id[:80]!r}: "
    text = item["text"]
    if not isinstance(text, str):
        raise TypeError(f"{who}{where}['text'] must be a string, got {_shown(text)} "
                        f"({_kind(text)})")
    if not text.strip():
        raise ValueError(f"{who}{where}['text'] is empty: a document needs some text")
    if not has_visible_text(text):
        raise ValueError(f"{who}{where}['text'] is empty: it holds {INVISIBLE_NOTE}; a document "
                         "needs some text")
    title = item.get("title")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"{who}{where}['title'] must be a string or None, got {_kind(title)}")
    for name, value in (("text", text), ("title", title or "")):
        if (at := lone_surrogate(value)) is not None:
            raise ValueError(f"{who}{where}[{name!r}] {surrogate_note(value, at)}")
    return doc_id, text, title or "", check_metadata(item.get("metadata"),
                                                     f"{where}['metadata']", who, own=own)


def coerce_document(item: Any, where: str = "document") -> Document:
    """A `Document` from itself or a dict with `id`, `text`, optional `title`, `metadata`;
    wrong types and empty ids or texts raise, naming `where` and the key, and so does a
    reserved metadata name, except in a `FileDocument` (which stays one)."""
    if isinstance(item, FileDocument):
        fields = {k: getattr(item, k) for k in DOCUMENT_KEYS}
        return FileDocument(*check_document_fields(fields, where, own=True), notes=item.notes)
    if isinstance(item, Document):
        return Document(*check_document_fields(asdict(item), where))
    if not isinstance(item, dict):
        raise TypeError(f"{where} must be a Document or a dict with 'id' and 'text' keys, "
                        f"got {type(item).__name__}")
    return Document(*check_document_fields(item, where))


def check_corpus_names(documents: Sequence[Document], source: str) -> None:
    """A build from corpus file `source` (JSONL, CSV…): no row sets a reserved metadata name
    (a crawler's `source` or `sha256` would be cited as a file's and touched by `sync`);
    the first one met is refused, before anything is encoded. Files' documents are the
    product's own and pass. A row's `access` is checked and stored as a list (in place)."""
    for doc in documents:
        if isinstance(doc, FileDocument):
            continue
        name = next((k for k in doc.metadata if is_reserved(k)), None)
        if name is not None:
            raise CorpusError(f"{source}: the row of id {doc.id[:80]!r} has a field "
                              f"{name[:60]!r}; {reserved_problem(name)} in the file, or keep "
                              "the other fields only with --metadata-fields "
                              "(metadata_fields=[...])")
        if ACCESS in doc.metadata:  # a row's access is one name; kept as a list of it
            try:
                doc.metadata[ACCESS] = check_access(doc.metadata[ACCESS])
            except (TypeError, ValueError) as exc:
                raise CorpusError(f"{source}: the row of id {doc.id[:80]!r}: {exc}") from None


def check_document_list(documents: Any, what: str = "documents") -> Sequence:
    """A list / tuple of documents (not a lone dict, string or Document)."""
    if isinstance(documents, (str, bytes, dict, Document)) or not isinstance(documents,
                                                                            (list, tuple)):
        hint = "; put one document in a list: [doc]" if isinstance(documents, (dict, Document)) \
            else ""
        raise TypeError(f"{what} must be a list of Document or dict, got "
                        f"{_kind(documents)}{hint}")
    return documents


def check_documents(documents: Any, batch_size: int,
                    fields: dict[str, str] | None = None) -> list[Document]:
    """`add` / `upsert` of either store: a list of documents, each checked, its text within
    `MAX_TEXT_CHARS`, no id twice, and metadata of the kinds the index's `fields` ({field:
    kind}) hold (`check_field_kinds`); and the batch size."""
    check_positive_int(batch_size, "batch_size")
    docs = [coerce_document(d, f"documents[{i}]")
            for i, d in enumerate(check_document_list(documents))]
    first: dict[str, int] = {}
    for i, doc in enumerate(docs):
        if len(doc.text) > MAX_TEXT_CHARS:
            raise ValueError(f"document {doc.id[:80]!r}: documents[{i}]['text'] is "
                             f"{len(doc.text):,} characters; a document written to an index "
                             f"holds at most {MAX_TEXT_CHARS:,}: split it into several "
                             "documents (a build reads longer ones)")
        if first.setdefault(doc.id, i) != i:
            raise ValueError(f"documents[{i}] has the id {doc.id[:80]!r} of "
                             f"documents[{first[doc.id]}]: each document of one write needs "
                             "its own id (nothing was written)")
    check_field_kinds(docs, fields or {})
    return docs


def check_field_kinds(docs: Sequence[Document], fields: dict[str, str]) -> dict[str, str]:
    """The metadata field kinds after writing `docs` over an index whose fields are `fields`;
    a value that would change a field's kind (`common.metadata`) raises a `ValueError` naming
    the document and the field. Both stores call it before writing anything."""
    kinds = dict(fields)
    for doc in docs:
        problem = kind_problem(kinds, doc.metadata)
        if problem:
            raise ValueError(f"document {doc.id[:80]!r}: {problem} (nothing was written)")
    return kinds


def check_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise QueryError(f"{name} must be True or False, got {value!r} ({_kind(value)})")
    return value


def check_rrf_k(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise QueryError(f"rrf_k must be an integer >= 0 (default 60), got {value!r}")
    return value


def check_build_args(preset, batch_size, shard_size, progress) -> None:
    """Settings that would otherwise fail after the corpus is read, or deep inside FAISS."""
    if preset not in PRESETS:
        raise ValueError(f"Invalid index preset {preset!r}. Valid: {', '.join(PRESETS)}")
    check_positive_int(batch_size, "batch_size")
    check_positive_int(shard_size, "shard_size")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable taking a BuildProgress, "
                        f"got {type(progress).__name__}")


def check_encoder(encoder: Any) -> None:
    """`SemanticIndex.open(encoder=...)`: an `Encoder`, not a name (that is `load_encoder`'s).
    Opening without one imports no model code (torch: ~2 s of an open)."""
    if encoder is None:
        return
    from encoder import Encoder

    if not isinstance(encoder, Encoder):
        hint = f": use encoder=load_encoder({encoder!r})" if isinstance(encoder, str) else ""
        raise TypeError(f"encoder must be an Encoder or None (the index's own model), got "
                        f"{type(encoder).__name__}{hint}")
