"""Per-document access: who may see a document, and what a read given `readers` keeps.

A document may carry metadata `access`: the groups or principal names allowed to see it, kept
as a sorted list of distinct strings (a single string is a list of one). A document without
`access` is visible to every reader of its index. Every read of the contract takes
`readers` (the caller's principal and groups): None reads without restriction (the library's
own callers, today's behaviour); given, only the documents whose `access` is absent or names
one of `readers` exist. Stores apply it inside the index, as a filter before top-k
(`indexer.folder.columns`, `indexer.milvus.expr.access_expr`), never after it.

Who may set `access`: a write through the API (`add`, `upsert`, `build_index` from a corpus,
the service's writes) and sync's `--access` rules. A file's front matter never does
(`common.documents.read.declared` drops it with a note): whoever can drop a file into a
synced folder must not grant themselves, or anyone, a reader."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from common.metadata import ACCESS
from common.text import lone_surrogate, surrogate_note

__all__ = ["ACCESS", "access_of", "check_access", "check_readers", "visible"]
MAX_NAMES = 256  # names one document's access holds
MAX_NAME_CHARS = 200  # characters of one group or principal name
MAX_READERS = 10_000  # names one read's readers holds


def check_access(value: Any, where: str = "metadata['access']") -> list[str]:
    """`value` (a name, or a list of names) as stored: sorted, each once. A `ValueError` /
    `TypeError` names what is wrong: an empty list (that would hide the document from
    everyone: leave `access` out for a document every reader sees), a name that is not a
    non-empty string of at most `MAX_NAME_CHARS`, more than `MAX_NAMES` names."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)):
        raise TypeError(f"{where} is a group or principal name, or a list of them; got "
                        f"{type(value).__name__}")
    if not names:
        raise ValueError(f"{where} is an empty list: no reader could see the document; leave "
                         "'access' out for a document every reader of the index sees")
    if len(names) > MAX_NAMES:
        raise ValueError(f"{where} names {len(names):,} groups; a document takes at most "
                         f"{MAX_NAMES} (give a group that holds them)")
    for i, name in enumerate(names):
        _check_name(name, f"{where}[{i}]")
    return sorted(set(names))


def _check_name(name: Any, where: str) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{where} must be a group or principal name (a string), got "
                        f"{type(name).__name__}")
    if not name.strip():
        raise ValueError(f"{where} is empty: a group or principal name has some text")
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"{where} is {len(name):,} characters; a group or principal name "
                         f"holds at most {MAX_NAME_CHARS}")
    if name != name.strip() or any(ord(c) < 32 or c == "\x7f" for c in name):
        raise ValueError(f"{where} {name[:60]!r} has spaces around it or a control character")
    if (at := lone_surrogate(name)) is not None:
        raise ValueError(f"{where} {surrogate_note(name, at)}")


def check_readers(readers: Any) -> frozenset[str] | None:
    """The `readers=` of a read: None (no restriction), or the caller's names as a set (empty:
    the caller sees only documents without `access`). A lone string is refused: it is not a
    list of its characters."""
    if readers is None:
        return None
    if isinstance(readers, (str, bytes)):
        raise TypeError(f"readers must be a list of group or principal names, not a single "
                        f"string: use [{readers!r}]")
    if not isinstance(readers, Iterable) or isinstance(readers, Mapping):
        raise TypeError(f"readers must be a list of group or principal names, got "
                        f"{type(readers).__name__}")
    names = list(readers)
    if len(names) > MAX_READERS:
        raise ValueError(f"readers holds {len(names):,} names; a read takes at most "
                         f"{MAX_READERS:,}")
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"readers[{i}] must be a string, got {type(name).__name__}")
    return frozenset(names)


def access_of(metadata: Mapping[str, Any] | None) -> list[str] | None:
    """The names a document's metadata allows (None: every reader). A value written before
    `access` was checked is read the same way: a string is one name, other scalars none."""
    value = (metadata or {}).get(ACCESS)
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []  # a value no reader's name equals: nobody but an unrestricted read


def visible(metadata: Mapping[str, Any] | None, readers: frozenset[str] | None) -> bool:
    """Whether a document of `metadata` exists for a read given `readers`."""
    if readers is None:
        return True
    names = access_of(metadata)
    return names is None or not readers.isdisjoint(names)
