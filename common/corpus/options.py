"""`CorpusOptions`: which fields of a corpus row hold the id, text, title and metadata, the
format, what a bad row does, and which error class a caller's corpus errors are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .records import CorpusError

FORMATS = ("jsonl", "csv", "tsv", "parquet", "folder", "json", "datasets")
ON_ERROR = ("skip", "fail")
DEFAULT_TITLE = "title"


@dataclass(frozen=True)
class CorpusOptions:
    """Which fields hold what. `id_field=None` tries `id` then `_id`, else generates an id from
    the row's content (`auto-<hash>`: stable, and two different rows never share one, whatever
    file they come from); `metadata_fields=None` keeps every other scalar field. A field named
    here that no row has is an error (a typo would otherwise go unnoticed); so is a row without
    a named `id_field` (skipped and reported)."""

    # The class of every corpus error raised with these options: a subclass sets its own (the
    # indexer's CorpusOptions raise `indexer.CorpusError`, an `IndexerError`).
    error: ClassVar[type[ValueError]] = CorpusError

    id_field: str | None = None
    text_field: str = "text"
    title_field: str | None = DEFAULT_TITLE  # None or "": no title
    metadata_fields: tuple[str, ...] | None = None
    format: str | None = None  # None: from the extension
    on_error: str = "skip"
    # a folder of documents (PDF, HTML, DOCX, Markdown, text): globs over the relative path
    include: tuple[str, ...] = ()  # () every supported file; else only files matching one
    exclude: tuple[str, ...] = ()
    max_file_mb: float = 100.0  # a larger file is reported, not read
    ocr: str = "auto"  # PDF pages with no text layer and images read by OCR; off | force

    def __post_init__(self) -> None:
        for name in ("id_field", "title_field", "format"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"CorpusOptions.{name} must be a string or None, got {value!r}")
        if not isinstance(self.text_field, str) or not self.text_field.strip():
            raise TypeError(f"CorpusOptions.text_field must be a field name, "
                            f"got {self.text_field!r}")
        fields = self.metadata_fields
        if isinstance(fields, str):
            raise TypeError(f"CorpusOptions.metadata_fields must be a list of field names, not "
                            f"a string: use ({fields!r},)")
        if fields is not None:
            if not isinstance(fields, (list, tuple, set, frozenset)) or not all(
                    isinstance(f, str) and f.strip() for f in fields):
                raise TypeError(f"CorpusOptions.metadata_fields must be a list of non-empty "
                                f"field names, got {fields!r}")
            object.__setattr__(self, "metadata_fields", tuple(fields))
        for name in ("include", "exclude"):
            globs = getattr(self, name)
            if isinstance(globs, str) or not isinstance(globs, (list, tuple)) or not all(
                    isinstance(g, str) and g.strip() for g in globs):
                raise TypeError(f"CorpusOptions.{name} must be a list of globs such as "
                                f"['*.pdf', 'reports/**'], got {globs!r}")
            object.__setattr__(self, name, tuple(globs))
        size = self.max_file_mb
        if isinstance(size, bool) or not isinstance(size, (int, float)) or not size > 0:
            raise TypeError(f"CorpusOptions.max_file_mb must be a positive number, got {size!r}")
        from ..documents.ocr import OCR_MODES

        if self.ocr not in OCR_MODES:
            raise self.error(f"Invalid ocr {self.ocr!r}. Valid: {', '.join(OCR_MODES)} (auto: "
                             "only pages with no text layer)")
        if self.on_error not in ON_ERROR:
            raise self.error(f"Invalid on_error {self.on_error!r}. Valid: {', '.join(ON_ERROR)}")
        if self.format is not None and self.format not in FORMATS:
            raise self.error(f"Invalid corpus format {self.format!r}. "
                             f"Valid: {', '.join(FORMATS)}")
        if self.id_field is not None and not self.id_field.strip():
            raise self.error("CorpusOptions.id_field is empty: name a field, or None for id/_id")

    def named_fields(self) -> dict[str, str]:
        """{field: role} for every field the user named (defaults that may be absent excluded)."""
        named = {self.text_field: "text_field"}
        if self.id_field:
            named[self.id_field] = "id_field"
        if self.title_field and self.title_field != DEFAULT_TITLE:
            named[self.title_field] = "title_field"
        for f in self.metadata_fields or ():
            named[f] = "metadata_fields"
        return named
