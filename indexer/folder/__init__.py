"""The folder store: the index contract (`indexer.SemanticIndex`) on FAISS + SQLite + BM25 files
in a folder, published as atomic versions. Everything only this store uses is here:

    index.py     FolderIndex: open a version, read and search it
    writes.py    its changing half: a private working copy, `save()` publishing it
    changes.py   the working copy (WorkingCopy): SQLite and FAISS changed together
    search.py    the Searcher: dense (FAISS), lexical (BM25) and hybrid over one version
    db.py        the SQLite schema and queries
    store/       the folder on disk: versions, manifest.json, checksums, publishing
    publish.py   a whole built or copied index published as the next version
    copy_in.py   a migration's copy into a folder
    location.py  FolderLocation: how the door (`indexer.stores`) opens, builds and copies here

What both stores share (chunking, fusion, filters, BM25 tokens, validation, presets, the
builds' shards) lies below, in `indexer/`."""

from .index import FolderIndex
from .location import FolderLocation

__all__ = ["FolderIndex", "FolderLocation"]
