"""Checks of a recipe's values whose errors say where in the file the problem is:
`recipes/x.json: stages[1].loss: Unknown loss 'huber'. Valid: ...`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import TrainingError


def existing(v: Checker, root: Path, ref: str, where: str, folder: bool = False) -> Path:
    path = Path(ref).expanduser()
    path = path if path.is_absolute() else root / path
    ok = path.is_dir() if folder else path.is_file()
    if not ok:
        raise v.error(where, f"{ref}: {'folder' if folder else 'file'} not found under {root} "
                             "(pass --data or set BERTSCOPE_DATA)")
    return path


class Checker:
    """Type and key checks whose errors say where in the file the problem is."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, where: str, message: str) -> TrainingError:
        return TrainingError(f"{self.path}: {where}: {message}" if where else
                             f"{self.path}: {message}")

    def keys(self, raw: dict, allowed: set[str], where: str) -> None:
        unknown = sorted(set(raw) - allowed)
        if unknown:
            raise self.error(where or unknown[0], f"unknown key {unknown[0]!r}. Valid: "
                                                  f"{', '.join(sorted(allowed))}")

    def typed(self, raw: dict, key: str, types: tuple[type, ...], where: str, *,
              required: bool = False) -> Any:
        label = f"{where}.{key}" if where else key
        if key not in raw:
            if required:
                raise self.error(label, "is required")
            return None
        value = raw[key]
        if isinstance(value, bool) and bool not in types:  # JSON true is not a number here
            ok = False
        else:
            ok = isinstance(value, types)
        if not ok:
            names = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise self.error(label, f"must be {names}, got {value!r}")
        return value

    def ruled(self, raw: dict, key: str, rule: Any, where: str, *,
              required: bool = False) -> Any:
        """`raw[key]` of the JSON types `rule` takes, then by the rule itself (a `Rule` of
        settings.py): `recipes/x.json: lr: must be > 0, got 0`; None when absent."""
        value = self.typed(raw, key, rule.types, where, required=required)
        problem = None if value is None else rule.problem(value)
        if problem:
            raise self.error(f"{where}.{key}" if where else key, problem)
        return value
