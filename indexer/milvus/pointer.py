"""A `NAME.milvus` pointer file, read as the untrusted input it is (anyone who can write into an
index root can make one): at most `MAX_POINTER_BYTES` read, never a file that is not regular
(a FIFO, a device), never through a link that leads outside `within` (the index root, else the
pointer's own folder), decoded as strict UTF-8, one line holding one `milvus://` address.

Every refusal is a `PointerError` naming the file (relative to `within`) and why, never quoting
what the file holds: its message reaches clients (`/v1/indexes`, `/ready`), and a link to
`/etc/passwd` must not show them its first line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import IndexerError, PointerError
from .address import EXAMPLE, POINTER_SUFFIX, is_milvus, parse_address

MAX_POINTER_BYTES = 4096  # an address is well under 300 characters; a pointer is never large
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def milvus_target(target: object, within: str | Path | None = None) -> str | None:
    """The Milvus address `target` names: itself (a `milvus://` address), or the one line a
    pointer file `NAME.milvus` holds (how an index root lists Milvus indexes beside its
    folders), read as untrusted input (`read_pointer`: bounded, never through a link
    leading outside `within`, the index root, else the pointer's own folder); None for anything
    else (a folder index, or no file at all)."""
    if is_milvus(target):
        return str(target)
    if not isinstance(target, (str, Path)) or Path(target).suffix != POINTER_SUFFIX:
        return None
    path = Path(target)
    if path.is_dir() or not (path.exists() or path.is_symlink()):
        return None
    return read_pointer(path, within)


def read_pointer(path: str | Path, within: str | Path | None = None) -> str:
    """The Milvus address the pointer file `path` holds; `PointerError` when it holds none."""
    path = Path(path)
    base = Path(within) if within is not None else path.parent
    where = f"the pointer file {_shown(path, base) if within is not None else path}"
    fix = f"write one Milvus address in it, e.g. {EXAMPLE}"
    real = _inside(path, base, where)
    data = _read_bounded(real, where)
    if data.startswith(b"\xef\xbb\xbf"):  # a BOM, as some editors write
        data = data[3:]
    if not data.strip():
        raise PointerError(f"{where} is empty: {fix}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PointerError(f"{where} is not UTF-8 text (byte {exc.start} is not; a binary "
                           f"file?): {fix}") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        raise PointerError(f"{where} holds {len(lines)} lines of text; a pointer holds one "
                           f"line: {fix}")
    address = lines[0]
    if not address.isprintable():
        raise PointerError(f"{where} holds control characters (a binary file?): {fix}")
    if not is_milvus(address):
        raise PointerError(f"{where} should hold one Milvus address ({EXAMPLE}); what it holds "
                           "does not start with milvus://")
    try:
        parse_address(address)
    except IndexerError as exc:  # its words quote the address: say them without it
        why = str(exc).replace(address, "its address")
        raise PointerError(f"{where}: {why}") from None
    return address


def _shown(path: Path, base: Path) -> str:
    """`path` as a message names it: relative to `base` where it lies below it."""
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def _inside(path: Path, base: Path, where: str) -> Path:
    """`path` with its links resolved, refused where it leads outside `base`."""
    try:
        real = path.resolve(strict=True)
        root = base.resolve(strict=True)
    except FileNotFoundError:
        broken = path.is_symlink()
        raise PointerError(f"{where} is {'a link to nothing' if broken else 'gone'}") from None
    except (OSError, RuntimeError) as exc:  # a loop of links; too long; no permission
        raise PointerError(f"{where} cannot be followed ({_reason(exc)})") from None
    if real != root and root not in real.parents:
        raise PointerError(f"{where} is a link to a file outside its index root, which is "
                           "never read: put the address itself in the file")
    return real


def _read_bounded(real: Path, where: str) -> bytes:
    """At most MAX_POINTER_BYTES of the regular file `real` (opened without blocking, so that a
    FIFO put in its place meanwhile cannot hang the reader)."""
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise PointerError(f"{where} cannot be read ({_reason(exc)})") from None
    try:
        mode = os.fstat(fd)
        kind = next((what for test, what in _KINDS if test(mode.st_mode)), None)
        if kind is not None or not stat.S_ISREG(mode.st_mode):
            raise PointerError(f"{where} is {kind or 'not a regular file'}, not a text file "
                               "holding one milvus:// address")
        if mode.st_size > MAX_POINTER_BYTES:
            raise PointerError(f"{where} is {mode.st_size:,} bytes; a pointer holds one "
                               f"milvus:// address, at most {MAX_POINTER_BYTES:,} bytes")
        data = os.read(fd, MAX_POINTER_BYTES + 1)
    except OSError as exc:
        raise PointerError(f"{where} cannot be read ({_reason(exc)})") from None
    finally:
        os.close(fd)
    if len(data) > MAX_POINTER_BYTES:  # it grew since fstat
        raise PointerError(f"{where} is over {MAX_POINTER_BYTES:,} bytes; a pointer holds one "
                           "milvus:// address")
    return data


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or type(exc).__name__
