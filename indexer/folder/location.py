"""`FolderLocation`: an index folder, as the door (`indexer.stores.locate`) reads it: open it, read
its manifest, tell a new version (the manifest file is replaced whole by each publish), build
into it, copy into it. The folder store takes every path no other store claims."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from common import check_path

from ..errors import IndexerError
from ..location import BuildTarget, Built, IndexLocation, Progress, StoredReader
from ..manifest import FORMAT, now
from . import store
from .index import FolderIndex


class FolderLocation(IndexLocation):
    kind = "folder"

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def claim(cls, target, role: str = "index path", within=None) -> FolderLocation:
        return cls(check_path(target, role, "an index folder path or a milvus:// address"))

    @classmethod
    def entry(cls, path: Path) -> Path | None:
        """An index folder: a folder holding a manifest (a damaged index too)."""
        return path if (path / store.MANIFEST).is_file() else None

    def __str__(self) -> str:
        return str(self.path)

    def open(self, *, encoder=None, verify: bool = True, backend: str | None = None):
        return FolderIndex.open_folder(self.path, encoder=encoder, verify=verify,
                                       backend=backend)

    def exists(self) -> bool:
        return (self.path / store.MANIFEST).is_file()

    def local_files(self) -> list[Path]:
        return [self.path]

    def read_manifest(self) -> dict:
        return store.read_manifest(self.path)[0]

    def stamp(self) -> tuple[int, int, int]:
        st = os.stat(self.path / store.MANIFEST)  # FileNotFoundError: the index is gone
        return st.st_ino, st.st_mtime_ns, st.st_size

    def check_apart(self, source: IndexLocation, verb: str) -> None:
        if not isinstance(source, FolderLocation):
            return
        a, b = source.path.resolve(), self.path.resolve()
        if a == b:
            raise IndexerError(f"--out {self.path} is the source index itself; give another "
                               f"folder (the source stays as it is: {verb} reads it only)")
        if a in b.parents:
            raise IndexerError(f"--out {self.path} lies inside the source index {source.path}; "
                               "give a folder outside it")

    def build_target(self, preset: str) -> FolderBuild:
        return FolderBuild(self.path, store.check_target(self.path))

    def copy_in(self, source, ids: Sequence[str], batch_docs: int, preset: str | None,
                progress: Progress, identity: str,
                verify: Callable[[StoredReader], int]) -> tuple[FolderIndex, int, int]:
        from .copy_in import copy_into_folder

        return copy_into_folder(source, ids, self.path, batch_docs, preset, progress, identity,
                                verify)


class FolderBuild(BuildTarget):
    """A build into a folder: its shards in a private folder of the index folder itself."""

    def __init__(self, path: Path, base: str | None) -> None:
        super().__init__(path)
        self.base = base  # what the build replaces: it publishes only while the folder has it

    def holds_index(self) -> bool:
        return (self.work / store.MANIFEST).exists()

    def publish(self, built: Built, progress) -> FolderIndex:
        from common.lexical_many import lexical_texts

        from ..build_progress import BuildProgress
        from ..index_encoder import encoder_fields
        from ..presets import spec_for
        from .publish import publish_folder

        enc, report = built.encoder, built.report
        spec = spec_for(built.preset, len(built.chunks), enc.dim)
        lex = lexical_texts([c.encoded for c in built.chunks],
                            lambda done, total: progress(BuildProgress("tokenize", done, total)))
        rows = [(c.doc_id, c.chunk_no, c.start, c.end, tokens)
                for c, tokens in zip(built.chunks, lex, strict=True)]
        del lex
        stamp = now()
        fields = {"format": FORMAT, "format_version": store.FOLDER_FORMAT_VERSION, "version": 0,
                  "built_at": stamp, "updated_at": stamp, "encoder": encoder_fields(enc),
                  "dim": enc.dim, "metric": "cosine", "normalized": True,
                  "chunking": built.chunking.to_dict(), "source": built.source,
                  "rows": report.rows, "duplicates": report.duplicates,
                  "skipped": [s.to_dict() for s in report.skipped],
                  "notes": report.kept_notes(), "files": {}}
        return publish_folder(self.work, self.base, built.docs, rows, built.vectors, spec,
                              fields, built.bm25, progress, built.build, encoder=enc)
