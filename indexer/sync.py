"""`sync_folder`: keep an index equal to a folder of documents. The first run builds it (a
build: resumable, published whole); later runs compare each file with its document — size
and modification time first, the content's sha256 only where those differ — and add new files,
re-encode changed ones, remove deleted ones and leave the rest as they are (nothing
re-encoded). Changes are written and saved a batch of files at a time, and every run works
out what to do from what the index holds: after a kill -9 at any moment, running it again
finishes the work and leaves the index equal to a fresh build of the folder.

Works on both stores through the API they share (`open`, `doc_ids`, `all_documents`, `upsert`,
`delete`, `save`). A file that cannot be read is reported and, if the index holds an earlier
version of it, keeps that version. A file touched without a change of content keeps its
document and the `modified` time of that document's content. Sync touches only documents it
read from files (`is_file_document`): rows from a corpus or a write in the same index are left
as they are (the report says how many), and a file whose id one of them holds is refused.
`access` rules (`indexer.access_rules`) say who may read each file; a file whose rule changed is
written again (re-encoded), and a run without rules over an index whose files carry access is
refused rather than making them public."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import check_path
from common.documents import MAX_FILE_MB, file_stamp, folder_files, is_file_document, read_file
from common.documents.records import ReadError

from .access import ACCESS
from .access_rules import AccessRule, access_for, parse_rules, with_access
from .build_progress import BuildProgress
from .chunking import ChunkingConfig
from .documents import Document
from .errors import IndexerError

BATCH_FILES = 64  # files encoded and saved together: a kill loses at most one batch's work
OTHERS_ID = ("not synced: the index holds a document with this id that was not read from a "
             "file (a corpus row or a write), and sync never replaces one; rename the file, or "
             "delete that document first (python -m indexer delete INDEX -- ID)")


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (relative path, reason)
    created: bool = False  # this run built the index
    # files read, with what was left out (front matter naming the product's own fields)
    notes: list[tuple[str, str]] = field(default_factory=list)
    others: list[str] = field(default_factory=list)  # documents not read from files: untouched

    def summary(self) -> str:
        return (f"added {len(self.added)}, updated {len(self.updated)}, removed "
                f"{len(self.removed)}, unchanged {self.unchanged}")

    def lines(self) -> list[str]:
        """The summary, then one line a failed file, one a file read with a note."""
        return [self.summary(), *(f"failed {rel}: {reason}" for rel, reason in self.failed),
                *(f"note {rel}: {note}" for rel, note in self.notes), *self._others_line()]

    def _others_line(self) -> list[str]:
        if not self.others:
            return []
        n = len(self.others)
        return [f"note: the index also holds {n:,} document{'s' if n > 1 else ''} not read "
                f"from files (e.g. {self.others[0][:80]!r}: a corpus row or a write); sync "
                "leaves them as they are and changes only the documents of files"]


@dataclass(frozen=True)
class SyncSettings:
    """How one sync reads the folder and writes the index: which files (`include`, `exclude`,
    `max_file_mb`), how it encodes (`batch_size`, `batch_files` files a save), and what the
    first run builds with (`model`, `backend`, `preset`, `chunking`; later runs use the
    index's own)."""

    model: Any = "minilm"  # a name, a folder or an Encoder
    backend: str = "auto"
    preset: str = "auto"
    chunking: ChunkingConfig | None = None
    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    max_file_mb: float = MAX_FILE_MB
    batch_size: int = 32
    batch_files: int = BATCH_FILES
    ocr: str = "auto"  # auto, off, force: which PDF pages and whether images are read by OCR
    access: tuple[AccessRule, ...] = ()  # who may read which files (the last match wins)


def _open(target: str, encoder, backend: str | None):
    from .index import SemanticIndex

    try:
        return SemanticIndex.open(target, encoder=encoder, backend=backend)
    except FileNotFoundError:
        return None


def sync_folder(folder: str | Path, target: str | Path, *, model=None,
                backend: str = "auto", preset: str = "auto",
                chunking: ChunkingConfig | None = None, include: Sequence[str] = (),
                exclude: Sequence[str] = (), max_file_mb: float = MAX_FILE_MB,
                batch_size: int = 32, batch_files: int = BATCH_FILES,
                progress: Callable[[BuildProgress], None] | None = None,
                ocr: str = "auto", access: Sequence[str] | None = None) -> SyncReport:
    """Make the index at `target` (a folder or a `milvus://` address) hold the documents of
    `folder`: build it when absent (with `model`, default minilm, `backend`, `preset`,
    `chunking`), else bring it up to date with the index's own model. `progress` gets
    `BuildProgress` reports (read: files checked; encode: chunks embedded, as a build's). `ocr`
    (auto, off, force): which PDF pages and whether images are read by OCR. `access`: rules
    'GLOB=NAME,NAME' ('GLOB=' for everyone) saying who may read which files
    (`indexer.access_rules`: the last that matches a file wins; no match: everyone)."""
    from common.documents.ocr import check_mode

    check_mode(ocr)
    rules = parse_rules(access)
    root = check_path(folder, "the folder to sync", "a folder of documents")
    if not root.is_dir():
        raise IndexerError(f"sync needs a folder of documents; {root} is "
                           f"{'a file' if root.exists() else 'not there'}")
    target = str(target)
    settings = SyncSettings(model or "minilm", backend, preset, chunking, include, exclude,
                            max_file_mb, batch_size, batch_files, ocr, rules)
    named = isinstance(model, (str, Path))
    index = _open(target, None if named else model, None if backend == "auto" else backend)
    if index is None:
        return _create(root, target, settings, progress)
    built_with = index.manifest["encoder"]["name"]
    if named and str(model) != built_with and not Path(model).expanduser().is_dir():
        raise IndexerError(f"{target} was built with {built_with!r}; sync encodes with the "
                           f"index's own model: drop --model {model}, or build a new index")
    try:
        return _update(index, root, settings, progress)
    finally:
        if hasattr(index, "close"):
            index.close()


def _create(root: Path, target: str, settings: SyncSettings,
            progress: Callable[[BuildProgress], None] | None) -> SyncReport:
    from .build import build_index
    from .corpus import CorpusOptions

    options = CorpusOptions(include=tuple(settings.include), exclude=tuple(settings.exclude),
                            max_file_mb=settings.max_file_mb, ocr=settings.ocr)
    corpus: Any = str(root)
    if settings.access:  # read here, to give each file the access its rule says
        from common.corpus import read_corpus

        def read(n: int, total: int) -> None:
            if progress is not None:
                progress(BuildProgress("read", n, total))

        corpus = read_corpus(root, options, progress=read)
        corpus.documents = [with_access(d, settings.access) for d in corpus.documents]
    # the folder's whole path: pages are drawn from its files (indexer.pages)
    index = build_index(corpus, target, model=settings.model, backend=settings.backend,
                        preset=settings.preset, chunking=settings.chunking,
                        corpus_options=options, batch_size=settings.batch_size,
                        progress=progress, source=str(root.resolve()))
    try:
        stats = index.stats()
        return SyncReport(added=index.doc_ids(), created=True,
                          failed=[(s.file, s.reason) for s in stats.skipped],
                          notes=[(s.file, s.reason) for s in stats.notes])
    finally:
        if hasattr(index, "close"):
            index.close()


def _update(index, root: Path, settings: SyncSettings,
            progress: Callable[[BuildProgress], None] | None) -> SyncReport:
    report = SyncReport()
    include = settings.include
    walked = folder_files(root, include, settings.exclude)
    report.failed.extend(walked.failures)
    if any(rel == "." for rel, _ in walked.failures):
        raise IndexerError(f"cannot read the folder {root}: {walked.failures[0][1]}; nothing "
                           "changed")
    whole = dict(index.all_metadata())  # id -> metadata: no text is read
    # documents read from files; any other (a corpus row, a write) is never touched
    held = {i: m for i, m in whole.items() if is_file_document(i, m)}
    report.others = sorted(i for i in whole if i not in held)
    if not walked.files and held:
        kept = f" matching {', '.join(include)}" if include else ""
        raise IndexerError(f"no document file under {root}{kept}: sync would remove all "
                           f"{len(held)} documents of the index; nothing changed (a wrong "
                           "folder or --include?)")
    _check_rules(held, settings.access)
    # ids with chunks but no whole document: a write that a kill cut short (Milvus)
    stray = set(index.doc_ids()) - set(whole)
    on_disk: set[str] = set()
    changed: list[Document] = []
    total = len(walked.files)
    for n, (path, rel) in enumerate(walked.files, start=1):
        on_disk.add(rel)
        old = held.get(rel)
        # a file whose rule now says other readers is written again
        same_access = old is not None and old.get(ACCESS) == access_for(rel, settings.access)
        if old is None and rel in whole:
            report.failed.append((rel, OTHERS_ID))
        elif same_access and file_stamp(path) == (old.get("bytes"), old.get("modified")):
            report.unchanged += 1
        else:
            try:
                doc = read_file(path, rel, settings.max_file_mb, ocr=settings.ocr)
            except ReadError as exc:
                report.failed.append((rel, str(exc)))
            except Exception as exc:  # a reader library's own failure on a strange file
                report.failed.append((rel, f"could not be read ({type(exc).__name__}: "
                                           f"{str(exc)[:200]})"))
            else:
                doc = with_access(doc, settings.access)
                if same_access and old.get("sha256") == doc.metadata["sha256"]:
                    report.unchanged += 1  # touched, same content: nothing to encode
                else:
                    (report.updated if old is not None else report.added).append(rel)
                    changed.append(doc)
                    report.notes.extend((rel, note) for note in doc.notes)
        if progress is not None:
            progress(BuildProgress("read", n, total))
    failed = {rel for rel, _ in report.failed}  # a file, or a folder that could not be read

    def kept(doc_id: str) -> bool:  # what could not be read keeps the version the index holds
        return doc_id in on_disk or any(doc_id == f or doc_id.startswith(f + "/")
                                        for f in failed)

    report.removed = sorted(i for i in held if not kept(i))
    gone = sorted(set(report.removed) | stray)
    if gone:
        index.delete(gone)
        index.save()
    encoded = [0, 0]  # chunks embedded by the batches before, chunks they had
    for at in range(0, len(changed), settings.batch_files):
        def chunks(n: int, total: int, at=at) -> None:  # the bar counts chunks, as a build's
            if progress is not None:
                progress(BuildProgress("encode", at, len(changed), chunks=encoded[0] + n,
                                       chunks_total=encoded[1] + total))
        written = _write(index, changed[at:at + settings.batch_files], settings.batch_size,
                         report, chunks)
        encoded[0] += written
        encoded[1] += written
        index.save()
        if progress is not None:
            done = min(at + settings.batch_files, len(changed))
            progress(BuildProgress("encode", done, len(changed), chunks=encoded[0],
                                   chunks_total=encoded[1]))
    if progress is not None:
        progress(BuildProgress("done", len(changed), len(changed)))
    return report


def _check_rules(held: dict[str, dict], rules: tuple[AccessRule, ...]) -> None:
    """A run without rules over files that carry access would make them every reader's: a
    forgotten --access is refused, with what to write instead."""
    if rules:
        return
    kept = sorted(i for i, m in held.items() if ACCESS in m)
    if kept:
        raise IndexerError(f"{len(kept):,} files of this index carry access from earlier "
                           f"--access rules (e.g. {kept[0][:80]!r}); sync without rules would "
                           "make them visible to every reader: give the rules again, or "
                           "--access '**=' to make every file public; nothing changed")


def _write(index, docs: list[Document], batch_size: int, report: SyncReport,
           progress=None) -> int:
    """Upsert `docs` (`progress(chunks embedded, chunks)`), returning the chunks written; where
    the index refuses the batch (a write's checks: a text longer than a write takes, a metadata
    field of another type), each document alone, the refused ones reported as failed files and
    nothing of them written."""
    try:
        return index.upsert(docs, batch_size=batch_size, progress=progress)
    except ValueError:
        pass
    written = 0
    for doc in docs:
        try:
            written += index.upsert([doc], batch_size=batch_size)
        except ValueError as exc:
            report.failed.append((doc.id, f"not written: {exc}"))
            for done in (report.added, report.updated):
                if doc.id in done:
                    done.remove(doc.id)
    return written
