"""The address of a Milvus index: `milvus://` + what `MilvusClient` takes + `?collection=NAME`.

    milvus:///data/scifact.db?collection=scifact     milvus-lite, embedded, in that file
    milvus://./scifact.db?collection=scifact         the same, relative to the working folder
    milvus://db.example.com:19530?collection=scifact a Milvus server or cluster (port 19530 if
                                                      none is given); http(s):// spelt out also

A `.db` ending means milvus-lite; anything else is a server's host[:port]. Everywhere a folder
index's path is accepted, `is_milvus(target)` tells the two apart; a file `NAME.milvus` holding
an address stands for it where indexes are found in folders (the app's index root)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs

from ..errors import IndexerError

SCHEME = "milvus://"
DEFAULT_PORT = 19530
# Milvus collection names: a letter or underscore, then letters, digits, underscores (<= 255)
_COLLECTION = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}\Z")
_HOST = re.compile(r"(?:https?://)?(?P<host>[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:]+\])(?::(?P<port>\d+))?"
                   r"/?\Z")
POINTER_SUFFIX = ".milvus"  # a file naming a Milvus index (`pointer.milvus_target`)
EXAMPLE = "milvus:///data/scifact.db?collection=scifact or milvus://host:19530?collection=scifact"


@dataclass(frozen=True)
class MilvusAddress:
    uri: str  # what MilvusClient takes: an absolute `.db` path, or http(s)://host:port
    collection: str

    @property
    def lite(self) -> bool:
        """True for milvus-lite (a `.db` file on this machine), False for a server."""
        return not self.uri.startswith(("http://", "https://"))

    def __str__(self) -> str:
        return f"{SCHEME}{self.uri}?collection={self.collection}"


def is_milvus(target: object) -> bool:
    """True when `target` is a `milvus://` address (a string), not a folder path."""
    return isinstance(target, (str, MilvusAddress)) and str(target).startswith(SCHEME)


def parse_address(target: str | MilvusAddress) -> MilvusAddress:
    """The parts of a `milvus://` address; `IndexerError` naming what is wrong."""
    if isinstance(target, MilvusAddress):
        return target
    if not is_milvus(target):
        raise IndexerError(f"{target!r} is not a Milvus address: use {EXAMPLE}")
    rest, _, query = target[len(SCHEME):].partition("?")
    params = parse_qs(query, keep_blank_values=True)
    unknown = sorted(set(params) - {"collection"})
    if unknown:
        raise IndexerError(f"{target}: unknown parameter {unknown[0]!r}; a Milvus address takes "
                           f"only ?collection=NAME, e.g. {EXAMPLE}")
    names = params.get("collection", [])
    if len(names) != 1 or not names[0]:
        raise IndexerError(f"{target}: name one collection with ?collection=NAME, e.g. {EXAMPLE}")
    return milvus_address(rest, names[0], where=target)


def milvus_address(uri: str, collection: str, *, where: str | None = None) -> MilvusAddress:
    """An address from its two parts (`--milvus-uri`, `--collection`): a `.db` path for
    milvus-lite, or a server's [http(s)://]host[:port]."""
    where = where or f"--milvus-uri {uri!r}"
    if not isinstance(collection, str) or not _COLLECTION.match(collection):
        raise IndexerError(f"{where}: collection {collection!r} is not a Milvus collection name "
                           "(a letter or _, then letters, digits or _, at most 200)")
    if not isinstance(uri, str) or not uri.strip():
        raise IndexerError(f"{where}: give a .db path (milvus-lite) or host:port (a server)")
    if uri.endswith(".db") and not uri.startswith(("http://", "https://")):
        return MilvusAddress(str(Path(uri).expanduser().resolve()), collection)
    m = _HOST.match(uri)
    if not m:
        raise IndexerError(f"{where}: {uri!r} is neither a .db path (milvus-lite) nor "
                           f"host:port (a server), e.g. {EXAMPLE}")
    scheme = "https" if uri.startswith("https://") else "http"
    return MilvusAddress(f"{scheme}://{m['host']}:{m['port'] or DEFAULT_PORT}", collection)
