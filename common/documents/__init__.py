"""Document readers: a user's own files — PDF (its text layer, or OCR), web pages, Word,
PowerPoint, EPUB, Markdown, text, images of text (OCR) —
read into `Document`s whose text keeps its pages and sections, so that chunks stay within one
and every hit can cite `source`, `page` and `section`. One module a format behind one
interface (`bytes -> Parsed`: `READERS`); `read_file` adds what every file gets (id = path
relative to the folder, `format`, `modified`, `bytes`, `sha256`, the layout); `read_folder`
walks a folder (globs, symlink loops, unreadable files) and reports each file it cannot read
in one line. A file's own metadata (front matter) never sets the product's fields (`source`,
`page`, `sha256`…: `common.metadata.is_reserved`): such keys are ignored and the document's
`notes` say so.

    docs, failures = read_folder(Path("reports"), include=["*.pdf"])
    failures -> [("scans/2019.pdf", "no text layer in its 12 pages (a scanned PDF?); ...")]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from .folder import FolderFiles, folder_files, matches
from .layout import (
    LAYOUT_KEY,
    chunk_metadata,
    citation,
    join_segments,
    page_starts,
    place_at,
    section_span,
    segment_spans,
)
from .read import (
    DOCUMENT_EXTENSIONS,
    MAX_FILE_MB,
    READERS,
    file_stamp,
    is_file_document,
    modified_text,
    read_file,
)
from .records import FileDocument, Parsed, ReadError, Segment

__all__ = [
    "DOCUMENT_EXTENSIONS",
    "FileDocument",
    "LAYOUT_KEY",
    "MAX_FILE_MB",
    "READERS",
    "FolderFiles",
    "Parsed",
    "ReadError",
    "Segment",
    "chunk_metadata",
    "citation",
    "file_stamp",
    "folder_files",
    "is_file_document",
    "join_segments",
    "matches",
    "modified_text",
    "page_starts",
    "place_at",
    "read_file",
    "read_folder",
    "section_span",
    "segment_spans",
]


def read_folder(root: Path, include: Sequence[str] = (), exclude: Sequence[str] = (), *,
                max_file_mb: float = MAX_FILE_MB,
                progress: Callable[[int, int], None] | None = None, ocr: str = "auto"
                ) -> tuple[list[FileDocument], list[tuple[str, str]]]:
    """(documents, [(relative path, reason)]) of every file under `root` the globs keep;
    `progress(files done, files)` after each file; `ocr`: see `read_file`."""
    walked = folder_files(root, include, exclude)
    docs: list[FileDocument] = []
    failures = list(walked.failures)
    for n, (path, rel) in enumerate(walked.files, start=1):
        try:
            docs.append(read_file(path, rel, max_file_mb, ocr=ocr))
        except ReadError as exc:
            failures.append((rel, str(exc)))
        except Exception as exc:  # a reader library's own failure on a strange file
            failures.append((rel, f"could not be read ({type(exc).__name__}: "
                                  f"{str(exc)[:200]})"))
        if progress is not None:
            progress(n, len(walked.files))
    return docs, failures
