"""SQLite side of an index: documents (title, text, metadata JSON), chunks (offsets, lexical
tokens), tombstones (chunk ids still in FAISS but dead) and a small key/value table."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from .documents import Document

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
    """A connection to a published (immutable) store file."""
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
    conn.execute("SELECT count(*) FROM documents").fetchone()  # fails early on a damaged file
    return conn


def open_writable(path: Path, source: sqlite3.Connection | None = None) -> sqlite3.Connection:
    """A new working file, copied from `source` when given (copy-on-write of a published store)."""
    conn = sqlite3.connect(str(path), check_same_thread=False)
    if source is not None:
        source.backup(conn)
    conn.executescript(SCHEMA)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")  # the file is fsynced once, at publication
    return conn


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
    for part in _parts(doc_ids):
        q = f"SELECT chunk_id FROM chunks WHERE doc_id IN ({','.join('?' * len(part))})"
        out.extend(r[0] for r in conn.execute(q, part))
    return out


def delete_documents(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> None:
    for part in _parts(doc_ids):
        marks = ",".join("?" * len(part))
        conn.execute(f"DELETE FROM chunks WHERE doc_id IN ({marks})", part)
        conn.execute(f"DELETE FROM documents WHERE doc_id IN ({marks})", part)


def add_tombstones(conn: sqlite3.Connection, chunk_ids: Iterable[int]) -> None:
    conn.executemany("INSERT OR IGNORE INTO tombstones VALUES(?)", ((int(c),) for c in chunk_ids))


def tombstones(conn: sqlite3.Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT chunk_id FROM tombstones")]


def existing_ids(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> list[str]:
    out: list[str] = []
    for part in _parts(doc_ids):
        q = f"SELECT doc_id FROM documents WHERE doc_id IN ({','.join('?' * len(part))})"
        out.extend(r[0] for r in conn.execute(q, part))
    return out


def chunk_rows(conn: sqlite3.Connection, chunk_ids: Sequence[int]) -> dict[int, tuple]:
    """{chunk_id: (doc_id, start, end, title, text, metadata JSON)} for live chunk ids."""
    out: dict[int, tuple] = {}
    for part in _parts([int(c) for c in chunk_ids]):
        q = ("SELECT c.chunk_id, c.doc_id, c.start, c.end, d.title, d.text, d.metadata "
             "FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
             f"WHERE c.chunk_id IN ({','.join('?' * len(part))})")
        for row in conn.execute(q, part):
            out[row[0]] = row[1:]
    return out


def document(conn: sqlite3.Connection, doc_id: str) -> Document | None:
    row = conn.execute("SELECT title, text, metadata FROM documents WHERE doc_id=?",
                       (doc_id,)).fetchone()
    return Document(doc_id, row[1], row[0], json.loads(row[2])) if row else None


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    one = lambda q: conn.execute(q).fetchone()[0]  # noqa: E731
    return {"documents": one("SELECT count(*) FROM documents"),
            "chunks": one("SELECT count(*) FROM chunks"),
            "tombstones": one("SELECT count(*) FROM tombstones")}


def lexical_rows(conn: sqlite3.Connection) -> tuple[list[int], list[list[str]]]:
    ids, tokens = [], []
    for chunk_id, lex in conn.execute("SELECT chunk_id, lex FROM chunks ORDER BY chunk_id"):
        ids.append(chunk_id)
        tokens.append(lex.split(" ") if lex else [])
    return ids, tokens


def live_chunk_ids(conn: sqlite3.Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT chunk_id FROM chunks ORDER BY chunk_id")]


def _parts(items: Sequence, size: int = 900):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]
