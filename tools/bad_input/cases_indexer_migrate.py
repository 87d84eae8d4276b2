"""Bad inputs to `python -m indexer migrate SRC DST` (folder indexes and `milvus://` addresses,
any way round)."""

from __future__ import annotations

from collections.abc import Callable

from .probe import Case

DB = "milvus://{W}/m.db?collection=idx"  # milvus-lite in the workspace
CLOSED = "milvus://127.0.0.1:9?collection=idx"  # a port nothing listens on: refused at once


def migrate_cases(r: Callable[..., Case]) -> list[Case]:
    """The cases, made by `cases_indexer_cli`'s case maker `r`."""
    return [
        r("no arguments"),
        r("only SRC", "{W}/idx"),
        r("SRC that does not exist", "{W}/nope", DB),
        r("SRC an empty string", "", DB),
        r("SRC a file", "{W}/file.txt", DB),
        r("SRC an empty folder", "{W}/empty", DB),
        r("SRC the corpus file, not an index", "{W}/corpus.jsonl", DB),
        r("SRC a training run folder", "{W}/runs/finished", DB),
        r("SRC an http URL", "http://example.com/idx", DB),
        r("SRC a Milvus collection that does not exist", "milvus://{W}/none.db?collection=idx",
          "{W}/o"),
        r("DST the source folder itself", "{W}/idx", "{W}/idx"),
        r("DST a folder, SRC a folder (a copy within one store)", "{W}/idx", "{W}/o",
          expect=0, note="copied as stored and verified, as between stores"),
        r("DST an empty string", "{W}/idx", ""),
        r("DST an address without ?collection=", "{W}/idx", "milvus://{W}/m.db"),
        r("DST an empty collection name", "{W}/idx", "milvus://{W}/m.db?collection="),
        r("DST a collection name with a space and a quote", "{W}/idx",
          "milvus://{W}/m.db?collection=a b\""),
        r("DST a collection name starting with a digit", "{W}/idx",
          "milvus://{W}/m.db?collection=1idx"),
        r("DST milvus: without //", "{W}/idx", "milvus:{W}/m.db?collection=idx"),
        r("DST a .db below a file", "{W}/idx", "milvus://{W}/file.txt/m.db?collection=idx"),
        r("DST a server nothing listens on", "{W}/idx", CLOSED),
        r("--batch 0", "{W}/idx", DB, "--batch", "0"),
        r("--batch abc", "{W}/idx", DB, "--batch", "abc"),
        r("--sample -1", "{W}/idx", DB, "--sample", "-1"),
        r("--index fast (not a preset)", "{W}/idx", DB, "--index", "fast"),
        r("--model given (migrate re-encodes nothing)", "{W}/idx", DB, "--model", "minilm"),
        r("folder into milvus-lite (the real use)", "{W}/idx", "milvus://{W}/ok.db?collection=idx",
          expect=0, note="copied without re-encoding, verified"),
    ]
