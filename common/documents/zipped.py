"""The zip archive under an Office or e-book file (.docx, .pptx, .epub), checked before a
library unpacks it: a zip at all, the member the format needs, and no more than `MAX_UNZIPPED`
bytes inside (a small file that unpacks to gigabytes is refused, not unpacked)."""

from __future__ import annotations

import io
import zipfile

from .records import ReadError

MAX_UNZIPPED = 512 * 2**20  # bytes all members hold unpacked


def check_zip(data: bytes, member: str, what: str, fix: str = "") -> None:
    """A `ReadError` unless `data` is a zip holding `member` within `MAX_UNZIPPED` bytes."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
    except zipfile.BadZipFile:
        raise ReadError(f"not a {what} (not a zip archive){fix}") from None
    if not any(i.filename == member for i in infos):
        raise ReadError(f"a zip archive but no {what} (no {member}): is the extension right?")
    size = sum(i.file_size for i in infos)
    if size > MAX_UNZIPPED:
        raise ReadError(f"unpacks to {size / 2**20:,.0f} MB, over the {MAX_UNZIPPED // 2**20} MB "
                        "a file may hold unpacked (a zip bomb?): refused")
