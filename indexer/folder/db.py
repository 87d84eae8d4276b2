"""SQLite side of an index: documents (title, text, metadata JSON), chunks (offsets, lexical
tokens), tombstones (chunk ids still in FAISS but dead) and a small key/value table. Every SQL
statement of the indexer lives in this module."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..documents import Document

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents(
    doc_id TEXT PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL, metadata TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks(
    chunk_id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL, chunk_no INTEGER NOT NULL,
    start INTEGER NOT NULL, end INTEGER NOT NULL, lex TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS tombstones(chunk_id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS info(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def open_readonly(path: Path) -> sqlite3.Connection:
    """A connection to a published (immutable) store file (its path quoted into the URI: a
    folder named `Q&A #3?` is a path, not a query)."""
    uri = f"file:{quote(str(Path(path).absolute()))}?mode=ro&immutable=1"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    conn.execute("SELECT count(*) FROM documents").fetchone()  # fails early on a damaged file
    return conn


def open_writable(path: Path, source: sqlite3.Connection | None = None) -> sqlite3.Connection:
    """A private working file, copied from `source` when given (copy-on-write of a published
    store). Autocommit: changes are grouped with `transaction`."""
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    if source is not None:
        source.backup(conn)
    conn.execute("PRAGMA journal_mode=MEMORY")  # ROLLBACK works; no journal file beside it
    conn.execute("PRAGMA synchronous=OFF")  # the file is fsynced once, at publication
    conn.executescript(SCHEMA)
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """All of the block's changes, or none of them when it raises."""
    conn.execute("BEGIN")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def next_chunk_id(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM info WHERE key='next_chunk_id'").fetchone()
    return int(row[0]) if row else 0


def set_next_chunk_id(conn: sqlite3.Connection, value: int) -> None:
    conn.execute("INSERT OR REPLACE INTO info VALUES('next_chunk_id', ?)", (str(value),))


def insert_documents(conn: sqlite3.Connection, docs: Iterable[Document]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO documents VALUES(?,?,?,?)",
        ((d.id, d.title, d.text, json.dumps(d.metadata, ensure_ascii=False)) for d in docs),
    )


def insert_chunks(conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
    """rows: (chunk_id, doc_id, chunk_no, start, end, lex tokens joined by spaces)."""
    conn.executemany("INSERT INTO chunks VALUES(?,?,?,?,?,?)", rows)


def chunk_ids_of(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> list[int]:
    out: list[int] = []
    for part in in_parts(doc_ids):
        q = f"SELECT chunk_id FROM chunks WHERE doc_id IN ({','.join('?' * len(part))})"
        out.extend(r[0] for r in conn.execute(q, part))
    return out


def chunks_of(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> list[tuple]:
    """(chunk_id, doc_id, chunk_no, start, end, lex tokens joined by spaces) of every chunk of
    `doc_ids`, in chunk id order."""
    out: list[tuple] = []
    for part in in_parts(doc_ids):
        q = ("SELECT chunk_id, doc_id, chunk_no, start, end, lex FROM chunks "
             f"WHERE doc_id IN ({','.join('?' * len(part))})")
        out.extend(conn.execute(q, part))
    return sorted(out)


def delete_documents(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> None:
    for part in in_parts(doc_ids):
        marks = ",".join("?" * len(part))
        conn.execute(f"DELETE FROM chunks WHERE doc_id IN ({marks})", part)
        conn.execute(f"DELETE FROM documents WHERE doc_id IN ({marks})", part)


def add_tombstones(conn: sqlite3.Connection, chunk_ids: Iterable[int]) -> None:
    conn.executemany("INSERT OR IGNORE INTO tombstones VALUES(?)", ((int(c),) for c in chunk_ids))


def tombstones(conn: sqlite3.Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT chunk_id FROM tombstones")]


def clear_tombstones(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM tombstones")


def existing_ids(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> list[str]:
    out: list[str] = []
    for part in in_parts(doc_ids):
        q = f"SELECT doc_id FROM documents WHERE doc_id IN ({','.join('?' * len(part))})"
        out.extend(r[0] for r in conn.execute(q, part))
    return out


def chunk_rows(conn: sqlite3.Connection, chunk_ids: Sequence[int]) -> dict[int, tuple]:
    """{chunk_id: (doc_id, start, end, title, text, metadata JSON)} for live chunk ids."""
    out: dict[int, tuple] = {}
    for part in in_parts([int(c) for c in chunk_ids]):
        q = ("SELECT c.chunk_id, c.doc_id, c.start, c.end, d.title, d.text, d.metadata "
             "FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
             f"WHERE c.chunk_id IN ({','.join('?' * len(part))})")
        for row in conn.execute(q, part):
            out[row[0]] = row[1:]
    return out


def documents(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> dict[str, Document]:
    """{doc_id: Document} for the ids that exist."""
    out: dict[str, Document] = {}
    for part in in_parts(doc_ids):
        q = ("SELECT doc_id, title, text, metadata FROM documents "
             f"WHERE doc_id IN ({','.join('?' * len(part))})")
        for doc_id, title, text, meta in conn.execute(q, part):
            out[doc_id] = Document(doc_id, text, title, json.loads(meta))
    return out


def all_documents(conn: sqlite3.Connection, batch: int = 1000) -> Iterator[Document]:
    """Every document, in the order they were stored (the corpus order of a build; upserted ones
    last), read `batch` rows at a time."""
    cursor = conn.execute("SELECT doc_id, title, text, metadata FROM documents ORDER BY rowid")
    while rows := cursor.fetchmany(batch):
        for doc_id, title, text, meta in rows:
            yield Document(doc_id, text, title, json.loads(meta))


def all_metadata(conn: sqlite3.Connection, batch: int = 1000) -> Iterator[tuple[str, dict]]:
    """(doc_id, metadata) of every document, in stored order, without the texts."""
    cursor = conn.execute("SELECT doc_id, metadata FROM documents ORDER BY rowid")
    while rows := cursor.fetchmany(batch):
        for doc_id, meta in rows:
            yield doc_id, json.loads(meta)


def all_doc_ids(conn: sqlite3.Connection) -> list[str]:
    """Every document's id, in the order they were stored (as `all_documents`)."""
    return [r[0] for r in conn.execute("SELECT doc_id FROM documents ORDER BY rowid")]


def doc_ids_of_chunks(conn: sqlite3.Connection, chunk_ids: Sequence[int]) -> dict[int, str]:
    """{chunk_id: doc_id} for live chunk ids."""
    out: dict[int, str] = {}
    for part in in_parts([int(c) for c in chunk_ids]):
        q = f"SELECT chunk_id, doc_id FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})"
        out.update(conn.execute(q, part).fetchall())
    return out


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    one = lambda q: conn.execute(q).fetchone()[0]  # noqa: E731
    return {"documents": one("SELECT count(*) FROM documents"),
            "chunks": one("SELECT count(*) FROM chunks"),
            "tombstones": one("SELECT count(*) FROM tombstones")}


def iter_lexical_rows(conn: sqlite3.Connection, batch: int = 10_000, start: int = 0
                      ) -> Iterator[tuple[int, str]]:
    """(chunk id, BM25 tokens joined by spaces) of every chunk from id `start` on, in id order,
    `batch` at a time."""
    cursor = conn.execute("SELECT chunk_id, lex FROM chunks WHERE chunk_id >= ? "
                          "ORDER BY chunk_id", (start,))
    while rows := cursor.fetchmany(batch):
        yield from rows


def lexical_rows_of(conn: sqlite3.Connection, chunk_ids: Sequence[int]) -> list[tuple[int, str]]:
    """(chunk id, BM25 tokens joined by spaces) of the live chunks among `chunk_ids`, in id
    order."""
    out: list[tuple[int, str]] = []
    for part in in_parts([int(c) for c in chunk_ids]):
        q = f"SELECT chunk_id, lex FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})"
        out.extend(conn.execute(q, part))
    return sorted(out)


def lexical_rows(conn: sqlite3.Connection) -> tuple[list[int], list[list[str]]]:
    ids, tokens = [], []
    for chunk_id, lex in conn.execute("SELECT chunk_id, lex FROM chunks ORDER BY chunk_id"):
        ids.append(chunk_id)
        tokens.append(lex.split(" ") if lex else [])
    return ids, tokens


def live_chunk_ids(conn: sqlite3.Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT chunk_id FROM chunks ORDER BY chunk_id")]


# -- metadata: field types, values, filters --------------------------------------------------
JSON_TYPES = {"integer": "int", "real": "float", "text": "str", "true": "bool", "false": "bool"}
SQL_OPERATORS = {"eq": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


# A metadata key is matched by value against `json_each`'s decoded key, never spelt into a JSON
# path: SQLite compares a path's label with the key's raw JSON text, so a key holding `"`, `\\`
# or any character JSON escapes (a tab, a newline) can be written as no path at all.


def field_values(conn: sqlite3.Connection, name: str, limit: int,
                 readers: frozenset[str] | None = None) -> list[Any] | None:
    """The distinct values of metadata field `name` among the documents `readers` may see,
    sorted; None when there are more than `limit` of them."""
    seen, params = access_clause(readers)
    rows = conn.execute(
        "SELECT DISTINCT j.value FROM documents d, json_each(d.metadata) j WHERE j.key = ? "
        f"AND j.type IN ({','.join('?' * len(JSON_TYPES))}) AND {seen} LIMIT ?",
        (str(name), *JSON_TYPES, *params, limit + 1)).fetchall()
    if len(rows) > limit:
        return None
    return sorted((r[0] for r in rows), key=lambda v: (type(v).__name__, v))


def access_clause(readers: frozenset[str] | None) -> tuple[str, list]:
    """(SQL over documents `d`, its parameters): the document is visible to `readers`, i.e. has
    no `access` or one naming a reader (`indexer.access.visible`); "1" for no restriction."""
    if readers is None:
        return "1", []
    public = "coalesce(json_type(d.metadata, '$.access'), 'null') = 'null'"
    if not readers:
        return public, []
    names = sorted(readers)
    return (f"({public} OR EXISTS (SELECT 1 FROM json_each(d.metadata, '$.access') a "
            f"WHERE a.type = 'text' AND a.value IN ({','.join('?' * len(names))})))", names)


def visible_ids(conn: sqlite3.Connection, doc_ids: Sequence[str],
                readers: frozenset[str] | None) -> set[str]:
    """The ids among `doc_ids` of documents that exist for `readers`."""
    seen, params = access_clause(readers)
    out: set[str] = set()
    for part in in_parts(doc_ids):
        q = (f"SELECT d.doc_id FROM documents d WHERE d.doc_id IN ({','.join('?' * len(part))})"
             f" AND {seen}")
        out.update(r[0] for r in conn.execute(q, [*part, *params]))
    return out


def visible_counts(conn: sqlite3.Connection, readers: frozenset[str]) -> dict[str, int]:
    """Documents and chunks `readers` may see."""
    seen, params = access_clause(readers)
    docs = conn.execute(f"SELECT count(*) FROM documents d WHERE {seen}", params).fetchone()[0]
    chunks = conn.execute("SELECT count(*) FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
                          f" WHERE {seen}", params).fetchone()[0]
    return {"documents": docs, "chunks": chunks}


def matching_chunks(conn: sqlite3.Connection, conditions: Sequence[tuple[str, str, list]],
                    readers: frozenset[str] | None = None) -> tuple[list[int], int]:
    """(chunk ids of the documents whose metadata meet every (field, op, values) condition and
    that `readers` may see, how many such documents). `op` is "in" or one of SQL_OPERATORS
    (one value)."""
    seen, params = access_clause(readers)
    clauses = [seen]
    for name, op, values in conditions:
        if op == "in":
            test = f"j.value IN ({','.join('?' * len(values))})"
        else:
            test = f"j.value {SQL_OPERATORS[op]} ?"
        clauses.append(f"EXISTS (SELECT 1 FROM json_each(d.metadata) j WHERE j.key = ? AND {test})")
        params.extend([str(name), *values])
    rows = conn.execute(
        "SELECT c.chunk_id, c.doc_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
        f"WHERE {' AND '.join(clauses)}", params).fetchall()
    return [r[0] for r in rows], len({r[1] for r in rows})


def in_parts(items: Sequence, size: int = 900):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]
