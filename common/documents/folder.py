"""A user's folder, walked: every file under it (symlinks followed, each folder once: a symlink
loop is reported, not walked forever), kept or left by `--include` / `--exclude` globs over the
path relative to the folder; files of no supported type are passed over unless an include glob
names them. What cannot be walked (an unreadable folder, a broken link, a link to a pipe or a
device, a name that is not UTF-8) is reported per path, and the rest is read."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..text import lone_surrogate
from .read import DOCUMENT_EXTENSIONS


@dataclass
class FolderFiles:
    files: list[tuple[Path, str]] = field(default_factory=list)  # (path, relative posix path)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (relative path, reason)


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern:
    """A glob as a regex over a relative posix path: `*` and `?` stay within a folder name,
    `**/` spans any folders (none too), `[...]` is a character class."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 1:]:
            end = pattern.index("]", i + 1)
            out.append("[" + pattern[i + 1:end].replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches(rel: str, patterns: Sequence[str]) -> bool:
    """Whether `rel` matches a glob; a glob without "/" matches the file name in any folder
    ("*.pdf"), one with "/" the whole relative path ("reports/**/*.pdf"); a folder name
    followed by "/" or "/**" matches everything below it."""
    name = rel.rsplit("/", 1)[-1]
    for pattern in patterns:
        pattern = pattern.strip().removeprefix("./")
        if not pattern:
            continue
        if pattern.endswith("/"):
            pattern += "**"
        target = rel if "/" in pattern else name
        if _glob_regex(pattern).match(target):
            return True
    return False


def folder_files(root: Path, include: Sequence[str] = (), exclude: Sequence[str] = ()
                 ) -> FolderFiles:
    """Every file to read under `root`, sorted by relative path, and what could not be walked.
    Walked with a stack, not recursion: a folder nested a thousand deep is read like any."""
    found = FolderFiles()
    seen_dirs: set[tuple[int, int]] = set()
    stack = [(root, "")]
    while stack:
        folder, rel = stack.pop()
        try:
            st = folder.stat()
        except OSError as exc:
            found.failures.append((rel or ".", f"folder cannot be read ({exc.strerror})"))
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            found.failures.append((rel, "a link to a folder already read (a symlink loop?): "
                                        "skipped"))
            continue
        seen_dirs.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            found.failures.append((rel or ".", f"folder cannot be read ({exc.strerror}): "
                                               "check its permissions"))
            continue
        below = []
        for entry in entries:
            child = f"{rel}/{entry.name}" if rel else entry.name
            if entry.name.startswith(".") and not matches(child, include):
                continue  # hidden files and folders (.git, .DS_Store) unless asked for
            if lone_surrogate(entry.name) is not None:  # bytes that are not UTF-8
                found.failures.append((shown(child), NOT_UTF8_NAME))
                continue
            try:
                is_dir = entry.is_dir()  # follows links
                is_file = not is_dir and entry.is_file()
            except OSError as exc:
                found.failures.append((child, f"cannot be read ({exc.strerror})"))
                continue
            if is_dir:
                if not matches(child + "/", exclude) and not matches(child, exclude):
                    below.append((Path(entry.path), child))
            elif is_file:
                if _wanted(Path(entry.path), child, include, exclude):
                    found.files.append((Path(entry.path), child))
            elif _wanted(Path(entry.path), child, include, exclude):
                found.failures.append((child, _not_a_file(Path(entry.path))))
        stack.extend(reversed(below))  # depth first, in name order
    found.files.sort(key=lambda f: f[1])
    return found


NOT_UTF8_NAME = ("its name is not UTF-8 (shown with \\x escapes): an index keeps names as "
                 "text; rename it (e.g. `convmv -f latin1 -t utf8`); skipped")


def shown(rel: str) -> str:
    """A relative path whose name bytes are not UTF-8, printable (`caf\\xe9.md`)."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


def _not_a_file(path: Path) -> str:
    """Why an entry that is neither a folder nor a regular file is skipped."""
    try:
        mode = path.stat().st_mode  # follows a link
    except FileNotFoundError:
        return "broken symlink: its target does not exist"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    what = ("a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file")
    via = "a link to " if path.is_symlink() else ""
    return f"{via}{what}, not a regular file: skipped (never opened: reading one may block)"


def _wanted(path: Path, rel: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Whether a file is read: not excluded, and included (no include globs: a supported type)."""
    if exclude and matches(rel, exclude):
        return False
    if include:
        return matches(rel, include)
    return path.suffix.lower() in DOCUMENT_EXTENSIONS
