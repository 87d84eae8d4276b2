"""The folder store: the index contract (`indexer.SemanticIndex`) on FAISS + SQLite + BM25 files
in a folder, published as atomic versions (`indexer.store`). index.py reads and searches,
writes.py changes a private copy and publishes it, publish.py publishes a whole built or copied
index, location.py is how `indexer.locate` builds, copies and opens here."""

from .index import FolderIndex
from .location import FolderLocation

__all__ = ["FolderIndex", "FolderLocation"]
