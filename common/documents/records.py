"""What a document reader gives: the file's text as `Segment`s (one page of a PDF, one section
of a Word, Markdown or web page), its title and format, and `ReadError` for a file that cannot be
read (one line: why, and what to do)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..corpus.records import Document


class ReadError(ValueError):
    """A file that gives no document: the message says why in one line (no file name: the
    caller puts it in front)."""


@dataclass(frozen=True)
class Segment:
    """A run of text that no chunk crosses: a PDF page (1-based `page`) or a section
    (`section`: its heading path, "A > B > C"; "" before the first heading)."""

    text: str
    page: int | None = None
    section: str = ""


@dataclass(frozen=True)
class Parsed:
    """A file read: `segments` in reading order, `title` ("" when the file names none),
    `metadata` the file declares (Markdown front matter, a PDF's page count), `layout`: what
    the document's layout keeps beside its spans (a PDF's dropped running lines, each OCR'd
    page's confidence), `ocr`: the pages read by OCR ({page: OcrPage}, their word boxes kept for
    highlighting), `notes`: what the reader could not read or left out (a part it skipped, a
    field it left out, a charset it guessed), one line each (the report's)."""

    format: str
    segments: list[Segment]
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    layout: dict[str, Any] = field(default_factory=dict)
    ocr: dict[int, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileDocument(Document):
    """A document the product read from a file (`read_file`): its reserved metadata (`source`,
    `format`, `sha256`, the layout: `common.metadata.RESERVED_NAMES`) is the product's own, so
    the index writes take it, where they refuse it from any other document. `notes`: what of the
    file was left out, one line each (said in the per-file report)."""

    notes: tuple[str, ...] = field(default=(), compare=False)
