"""Path confinement: a user-typed server-side path must resolve inside a configured root."""

from __future__ import annotations

from pathlib import Path


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
