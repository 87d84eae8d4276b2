"""`check_path`: a path argument of a library call, checked before it reaches `open()` or
`Path()`, so None, a number or "" give a sentence that names the argument instead of a traceback
from deep inside."""

from __future__ import annotations

import os
from pathlib import Path

NAME_MAX = 255  # bytes in one file or folder name (ext4, APFS, NTFS): longer gives ENAMETOOLONG


def check_path(value: object, what: str = "path",
               accepted: str = "a path (str or pathlib.Path)") -> Path:
    """`value` as an expanded `Path`; a `TypeError` naming `what` and `accepted` when it is not a
    str / os.PathLike, a `ValueError` when it is empty, a URL, holds a NUL character or a name
    longer than file systems allow."""
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{what} must be {accepted}, got {value!r} ({type(value).__name__})")
    text = os.fspath(value)
    if isinstance(text, bytes) or not text.strip():
        raise ValueError(f"{what} is empty: pass {accepted}")
    if "\x00" in text:
        raise ValueError(f"{what} {text!r} contains a NUL character")
    if "://" in text:
        raise ValueError(f"{what} {text!r} is a URL; pass {accepted}")
    path = Path(text).expanduser()
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX:
            raise ValueError(f"{what}: the name {part[:40]}… is {size} bytes long; a file or "
                             f"folder name may have at most {NAME_MAX}: use a shorter one")
    return path


def check_output_file(path: str | os.PathLike, flag: str,
                      error: type[Exception] = ValueError) -> Path:
    """An output file a CLI writes after its work (`--run`, `--json`), refused before the work
    when it names a folder or its folder is missing: `error(message naming flag)`."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise error(f"{flag} {path} is a folder; give a file name")
    parent = target.absolute().parent
    if not parent.is_dir():
        raise error(f"{flag} {path}: folder {parent} does not exist")
    return target


def os_error_text(exc: OSError) -> str:
    """One line for a CLI: `PATH: reason` ("out/x: Permission denied"), not Python's
    `[Errno 13] Permission denied: 'out/x'`."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return reason
    target = f" -> {exc.filename2}" if exc.filename2 is not None else ""
    return f"{exc.filename}{target}: {reason}"
