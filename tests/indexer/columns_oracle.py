"""The filter index's oracle, shared by the columns tests: SQLite's own JSON matching."""

from __future__ import annotations

import numpy as np

from indexer.filters import compile_filter
from indexer.folder import db


def assert_matches_sqlite(index, columns, specs: list[dict]) -> None:
    """Each filter in `specs` keeps, in `columns`, exactly the chunks and documents SQLite's
    matching keeps in `index`'s store."""
    types = index.field_types()
    for spec in specs:
        conditions = compile_filter(spec, types)
        ids, n_docs = db.matching_chunks(index.conn, conditions)
        mask, docs_matched = columns.matching(conditions)
        assert sorted(ids) == np.flatnonzero(mask).tolist(), spec
        assert docs_matched == n_docs, spec
