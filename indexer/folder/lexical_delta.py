"""The BM25 index of a writer's next version: the published version's segments with the working
copy's change applied (`SegmentedLexical.changed`: the chunks added since the copy was made,
the rows of those it deleted read from the published store), or built over every live chunk
where that cannot be: an index in bm25s's older format, other BM25 parameters, a change past
the merge share, or no writer at all (a reader whose BM25 files were set aside)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from common.bm25_segments import SegmentedLexical
from common.lexical import Bm25Params

from . import db
from .changes import WorkingCopy
from .store import Version


def next_lexical(version: Version, work: WorkingCopy | None, params: Bm25Params
                 ) -> SegmentedLexical:
    published = version.lexical
    if work is not None and isinstance(published, SegmentedLexical) and \
            published.params == params:
        gone = np.unique(work.deleted())
        gone = gone[gone < work.start]  # those added and deleted since the copy never were
        changed = published.changed(db.iter_lexical_rows(work.conn, start=work.start),
                                    db.lexical_rows_of(version.conn, gone.tolist()))
        if changed is not None:
            return changed
    conn = work.conn if work is not None else version.conn
    return SegmentedLexical.from_rows(db.iter_lexical_rows(conn), params)


def bm25_folder(version: Version) -> Path:
    """Where the published version's BM25 files are (a save links the unchanged ones)."""
    return version.folder / version.manifest["files"]["bm25"]["path"]
