"""`read_file`: one file of a user's folder as a `FileDocument` — its id and `source` the path
relative to the folder, its text the reader's segments joined (`layout`), its metadata `format`,
`modified`, `bytes`, `sha256`, what the file declares (front matter, page count) and the layout.
What the file declares never overrides the product's own fields: a front matter `page: 7` or
`source:` is ignored, and the document's `notes` say which keys were.
The bytes are read once: what is hashed is what is parsed. Every way a file can fail is one
`ReadError` line: wrong extension, empty, too large, vanished or changed while being read,
unreadable, or the reader's own."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from pathlib import Path

from ..metadata import ACCESS, RESERVED_NOTE, is_reserved
from .ebook import read_epub
from .layout import LAYOUT_KEY, join_segments
from .markdown import read_markdown
from .ocr import check_mode
from .ocr_cache import keep_ocr
from .ocr_pages import read_image
from .pdf import read_pdf
from .records import FileDocument, Parsed, ReadError
from .slides import read_pptx
from .text import read_text
from .web import read_html
from .word import read_docx

READERS: dict[str, Callable[..., Parsed]] = {
    ".pdf": read_pdf, ".html": read_html, ".htm": read_html, ".docx": read_docx,
    ".pptx": read_pptx, ".epub": read_epub, ".md": read_markdown, ".markdown": read_markdown,
    ".txt": read_text,
    ".png": read_image, ".jpg": read_image, ".jpeg": read_image, ".tif": read_image,
    ".tiff": read_image}
OCR_READERS = frozenset({read_pdf, read_image})  # those that take `ocr=`
DOCUMENT_EXTENSIONS = tuple(READERS)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MAX_FILE_MB = 100  # a larger file is reported, not read (CorpusOptions.max_file_mb)

# what a file's first bytes say it is, for a file whose extension says otherwise
_TIFF = (".tif", ".tiff")
_MAGIC = ((b"%PDF-", "a PDF", (".pdf",)),
          (b"PK\x03\x04", "a zip archive (a .docx, .pptx or .epub?)",
           (".docx", ".pptx", ".epub")),
          (b"\x89PNG", "a PNG image", (".png",)),
          (b"\xff\xd8\xff", "a JPEG image", (".jpg", ".jpeg")),
          (b"II*\x00", "a TIFF image", _TIFF), (b"MM\x00*", "a TIFF image", _TIFF),
          (b"GIF8", "a GIF image (save it as PNG to read it by OCR)", ()),
          (b"\x1f\x8b", "a gzip archive", ()),
          (b"\xd0\xcf\x11\xe0", "an old Office file (.doc/.xls/.ppt: save it as .docx or "
                              ".pptx)", ()))


def modified_text(mtime_ns: int) -> str:
    """A file's modification time as the index keeps it (UTC, ISO 8601, microseconds): equal
    for equal times, so `sync` compares it as text."""
    stamp = EPOCH + dt.timedelta(microseconds=mtime_ns // 1000)  # exact: no float seconds
    return stamp.isoformat(timespec="microseconds")


def _sniffed(data: bytes, suffix: str) -> None:
    """A `ReadError` when the first bytes say another kind of file than the extension."""
    head = data[:1024].lstrip()
    for magic, what, extensions in _MAGIC:
        if head.startswith(magic) and suffix not in extensions:
            fix = f": rename it {extensions[0]}" if len(extensions) == 1 else ""
            raise ReadError(f"named {suffix} but it is {what}{fix}")


# what read_file writes into every file's metadata: a file's own metadata never sets them
OWN_FIELDS = ("source", "format", "modified", "bytes", "sha256", LAYOUT_KEY)


def declared(metadata: dict) -> tuple[dict, str | None]:
    """(what a file declares that its document may keep, the note naming the keys ignored:
    the product's own names, `common.metadata.RESERVED_NAMES` and `OWN_FIELDS`, and `access`:
    who may read a file is the folder's rule, `sync --access`, never the file's own say)."""
    ignored = [k for k in metadata if is_reserved(k) or k in OWN_FIELDS or k == ACCESS]
    if not ignored:
        return metadata, None
    kept = {k: v for k, v in metadata.items() if k not in ignored}
    names = ", ".join(repr(k[:40]) for k in ignored[:8]) + (", …" if len(ignored) > 8 else "")
    return kept, (f"its metadata {names} ignored: names the product writes itself "
                  f"({RESERVED_NOTE}; a file's modified and bytes too; access, which only "
                  "sync's --access rules set); rename them to keep them")


def read_file(path: Path, rel: str, max_file_mb: float = MAX_FILE_MB, *,
              ocr: str = "auto") -> FileDocument:
    """The document of file `path` (id `rel`); `ReadError` naming why there is none. `ocr`
    (`ocr.OCR_MODES`): which PDF pages are read by OCR, and whether images are read at all."""
    check_mode(ocr)
    suffix = path.suffix.lower()
    reader = READERS.get(suffix)
    if reader is None:
        raise ReadError(f"unsupported file type {suffix or '(no extension)'}; supported: "
                        f"{', '.join(DOCUMENT_EXTENSIONS)}")
    try:
        before = path.stat()
        if before.st_size > max_file_mb * 2**20:
            raise ReadError(f"{before.st_size / 2**20:,.1f} MB, over the {max_file_mb:g} MB "
                            "limit for one file (--max-file-mb)")
        data = path.read_bytes()
        after = path.stat()
    except FileNotFoundError:
        raise ReadError("vanished while being read (deleted or moved)") from None
    except PermissionError:
        raise ReadError("permission denied: the file cannot be read") from None
    except IsADirectoryError:
        raise ReadError("a folder, not a file") from None
    except OSError as exc:
        raise ReadError(f"cannot be read ({exc.strerror or exc})") from None
    if (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns) \
            or len(data) != after.st_size:
        raise ReadError("changed while being read; run again once it is written")
    if not data.strip():
        raise ReadError("empty file (0 bytes)" if not data else "holds only whitespace")
    _sniffed(data, suffix)
    parsed = reader(data, ocr=ocr) if reader in OCR_READERS else reader(data)
    text, layout = join_segments(parsed.segments)
    if not text.strip():
        raise ReadError("no text in it")
    kept, note = declared(parsed.metadata)
    sha256 = hashlib.sha256(data).hexdigest()
    notes = (*parsed.notes, *((note,) if note else ()))
    metadata = {**kept, "source": rel, "format": parsed.format,
                "modified": modified_text(before.st_mtime_ns), "bytes": len(data),
                "sha256": sha256, LAYOUT_KEY: {**parsed.layout, **layout}}
    if parsed.ocr:
        keep_ocr(sha256, parsed.ocr)
    title = parsed.title.strip() or Path(rel).stem
    return FileDocument(rel, text, title, metadata, notes=notes)


def is_file_document(doc_id: str, metadata: dict) -> bool:
    """Whether an index's document is one `read_file` made from file `doc_id` (what `sync` may
    update or remove): its `source` is its id and it carries its content's sha256. No corpus
    row or write may set these names (`common.metadata`); a row of an index built before that
    rule that carries its own `source` (a crawler's URL) and `sha256` is not one."""
    return metadata.get("source") == doc_id and isinstance(metadata.get("sha256"), str) \
        and isinstance(metadata.get("modified"), str)


def file_stamp(path: Path) -> tuple[int, str] | None:
    """(size, modified) of `path` as `read_file` records them; None when it cannot be statted."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, modified_text(st.st_mtime_ns)
