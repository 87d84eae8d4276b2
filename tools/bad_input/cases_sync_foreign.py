"""Fourth-round bad input to sync (issue 52, classes 1 and 9): an index holding documents sync
did not write (a crawler's rows with their own source and sha256, a corpus row named like a
file), and folders with names that are not UTF-8, 1,000 levels deep, or pipes and devices."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from .cases_readers import BODY, made
from .probe import Case, Outcome, cli


# -- sync: what it did not write, odd folders -------------------------------------------------
def _synced(prepare: Callable, *, clean: Callable | None = None, extra: tuple = ()
            ) -> Callable[..., Outcome]:
    """`python -m indexer sync FOLDER W/sync4/NAME` on the folder `prepare(ws)` returns (an
    index it prepares beside it, when it returns (folder, index))."""

    def run(ws) -> Outcome:
        made_by = prepare(ws)
        folder, target = made_by if isinstance(made_by, tuple) else (made_by, None)
        target = target or ws.root / "sync4" / f"{folder.name}-idx"
        try:
            return cli("indexer", "sync", str(folder), str(target), "--model", "minilm",
                       *extra)(ws)
        finally:
            if clean is not None:
                clean(ws)

    return run


def _mixed(ws):
    """An index of a crawler's rows (their own source URL and sha256, as an index built before
    reserved names were refused holds them) and a corpus row named like a file, and a folder
    holding that file and another."""
    from common.documents import FileDocument
    from indexer import build_index

    from .cases_library import shared_minilm

    folder = ws.root / "sync4" / "mixed-docs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.md").write_text(f"# Notes\n\n{BODY}\n")
    (folder / "other.md").write_text("# Other\n\nRain is expected tomorrow.\n")
    target = ws.root / "sync4" / "mixed-idx"
    if not target.exists():
        rows = [FileDocument(f"page{i}", f"crawled page {i} about rivers", "",
                             {"source": f"https://example.org/{i}", "sha256": "ab" * 32})
                for i in range(2)]
        build_index([*rows, {"id": "notes.md", "text": "a corpus row named like a file"}],
                    target, model=shared_minilm(), preset="flat")
    return folder, target


def _odd_names(ws):
    folder = ws.root / "sync4" / "odd-names"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "good.md").write_text(f"# Good\n\n{BODY}\n")
    fd = os.open(os.fsencode(folder) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY)
    os.write(fd, b"# Cafe\n\nlatin-1 name\n")
    os.close(fd)
    return folder


def _deep(ws):
    folder = ws.root / "sync4" / "deep"
    deep = folder
    folder.mkdir(parents=True, exist_ok=True)
    for _ in range(1000):
        deep = deep / "d"
        deep.mkdir(exist_ok=True)
    (deep / "bottom.md").write_text(f"# Bottom\n\n{BODY}\n")
    return folder


def _undeep(ws):
    """Remove W/sync4/deep bottom up (shutil.rmtree, the workspace's clean-up, recurses)."""
    deep = ws.root / "sync4" / "deep"
    while (deep / "d").is_dir():
        deep = deep / "d"
    (deep / "bottom.md").unlink(missing_ok=True)
    while deep != ws.root / "sync4":
        deep.rmdir()
        deep = deep.parent


def _specials(ws):
    folder = ws.root / "sync4" / "specials"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fine.md").write_text(f"# Fine\n\n{BODY}\n")
    if not (folder / "pipe.md").exists():
        os.mkfifo(folder / "pipe.md")
        (folder / "to-pipe.md").symlink_to(folder / "pipe.md")
        (folder / "null.txt").symlink_to("/dev/null")
    return folder


def _readers(ws):
    """A folder of the made Word files, PDFs and odd encodings."""
    folder = ws.root / "sync4" / "readers"
    if not folder.exists():
        shutil.copytree(made(ws), folder)
        for rel in ("enc/nobom.md", "enc/utf16.txt", "enc/says-utf16.html"):
            shutil.copy(ws.root / "r4" / rel, folder / Path(rel).name)
    return folder


def sync_cases() -> list[Case]:
    entry = "python -m indexer sync"

    def row(bad, run, names, note=""):
        return Case(entry, bad, run, 0, note, names)

    return [
        row("a folder into an index holding a crawler's rows and a corpus row named like a "
            "file", _synced(_mixed), ("not read from files",),
            note="the crawler's rows kept (they were 'removed 2'); notes.md not synced over "
                 "the corpus row (it was replaced and counted 'added'); the report says so"),
        row("a folder holding a file whose name is not UTF-8", _synced(_odd_names),
            ("added 1",), note="that file is one line, shown with \\x escapes (the whole first "
                               "sync failed, naming no file)"),
        row("a folder nested 1,000 deep", _synced(_deep, clean=_undeep), ("added 1",),
            note="walked with a stack ('maximum recursion depth exceeded' before)"),
        row("a folder with a named pipe, a link to it and a link to /dev/null",
            _synced(_specials), ("added 1",),
            note="each named as a pipe or device and never opened (they were 'broken')"),
        row("a folder of Word files with nested tables, tracked changes, controls, text "
            "boxes; form PDFs; UTF-16 files", _synced(_readers), ("added 10",),
            note="every file read; a page without text and a guessed encoding noted"),
    ]
