"""Path confinement: a user-typed server-side path must resolve inside a configured root."""

from __future__ import annotations

from pathlib import Path


def data_folder_problem(root: Path) -> str | None:
    """A sentence when the data folder itself cannot hold a corpus (missing, or not a folder)."""
    if root.is_dir():
        return None
    what = "is not a folder" if root.exists() else "does not exist"
    return (f"The data folder {root} {what}, so no file on the server can be read: create it "
            "and put the corpus there, point the app's data folder elsewhere (Configuration in "
            "app/README.md), or upload the file instead.")


def server_data_note(root: Path, what: str = "files") -> str:
    """Where "on the server" reads from, said before anyone types a path: a newcomer's fresh
    clone has no data folder, and nothing said that these choices (and the recipes) need one."""
    return (f"Reads {what} under the data folder `{root}` (set by BERTSCOPE_DATA; by default "
            "`shared/data` beside the checkout, which a fresh clone of the repository does not "
            "have: put your files there, or upload them instead).")


def confine_path(root: Path, user_path: str) -> Path:
    """Resolve `user_path` (relative to `root`, or absolute) and return it if it lies in `root`.

    Symlinks are resolved before the check, so neither `..` nor a link can lead out of `root`.
    Raises ValueError with a sentence a user can act on.
    """
    text = (user_path or "").strip()
    if not text:
        raise ValueError("Type a path inside the data folder.")
    if "\x00" in text:
        raise ValueError("The path contains a NUL character.")
    problem = data_folder_problem(root)
    if problem:
        raise ValueError(problem)
    base = root.resolve()
    candidate = Path(text).expanduser()
    if not candidate.is_absolute():
        candidate = base / candidate
    resolved = candidate.resolve()
    if resolved != base and base not in resolved.parents:
        raise ValueError(
            f"{text!r} lies outside the data folder {base}; only paths inside it are allowed."
        )
    if not resolved.exists():
        raise ValueError(f"{text!r} does not exist inside the data folder {base}.")
    return resolved
