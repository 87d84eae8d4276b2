"""A user's folder, walked: every file under it (symlinks followed, each folder once: a symlink
loop is reported, not walked forever), kept or left by `--include` / `--exclude` globs over the
path relative to the folder; files of no supported type are passed over unless an include glob
names them. What cannot be walked (an unreadable folder, a broken link) is reported per path."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

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
    """Every file to read under `root`, sorted by relative path, and what could not be walked."""
    found = FolderFiles()
    seen_dirs: set[tuple[int, int]] = set()

    def walk(folder: Path, rel: str) -> None:
        try:
            st = folder.stat()
        except OSError as exc:
            found.failures.append((rel or ".", f"folder cannot be read ({exc.strerror})"))
            return
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            found.failures.append((rel, "a link to a folder already read (a symlink loop?): "
                                        "skipped"))
            return
        seen_dirs.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            found.failures.append((rel or ".", f"folder cannot be read ({exc.strerror}): "
                                               "check its permissions"))
            return
        for entry in entries:
            child = f"{rel}/{entry.name}" if rel else entry.name
            if entry.name.startswith(".") and not matches(child, include):
                continue  # hidden files and folders (.git, .DS_Store) unless asked for
            try:
                is_dir = entry.is_dir()  # follows links
                is_file = not is_dir and entry.is_file()
            except OSError as exc:
                found.failures.append((child, f"cannot be read ({exc.strerror})"))
                continue
            if is_dir:
                if not matches(child + "/", exclude) and not matches(child, exclude):
                    walk(Path(entry.path), child)
            elif is_file:
                _consider(found, Path(entry.path), child, include, exclude)
            elif entry.is_symlink():
                found.failures.append((child, "broken symlink: its target does not exist"))

    walk(root, "")
    found.files.sort(key=lambda f: f[1])
    return found


def _consider(found: FolderFiles, path: Path, rel: str, include: Sequence[str],
              exclude: Sequence[str]) -> None:
    if exclude and matches(rel, exclude):
        return
    if include:
        if matches(rel, include):
            found.files.append((path, rel))
    elif path.suffix.lower() in DOCUMENT_EXTENSIONS:
        found.files.append((path, rel))
