"""`reader_advice`: what to do when an index's model cannot read a query's script (a Chinese
query on `minilm`'s index): the same documents indexed again with a model that reads it. For an
index read from the user's own folder, that is a sync of *this* folder into a new index (a
later sync keeps it current); from a corpus file, a build from it; else a rebuild of the index's
own documents. The defaults (BBC News, the Chinese reviews) are not the user's: None there, and
the page offers its Chinese default index instead."""

from __future__ import annotations

import shlex
from pathlib import Path

from .default import DEFAULTS
from .stats import IndexStats

READER = "e5-multilingual"  # reads about 100 languages, Chinese among them


def reader_advice(stats: IndexStats, name: str, *, model: str = READER) -> str | None:
    """One paragraph (Markdown) for the index `name` (its folder name under the index root)
    whose model cannot read a query; None for a default corpus's index."""
    source = stats.source or ""
    if any(source.startswith(c.source.split(" (")[0]) for c in DEFAULTS.values()):
        return None  # a default corpus (or a sample of one, as the tests build)
    new = f"{name}-{model.split('-')[0]}"
    path = Path(source) if source else None
    if path is not None and path.is_dir():
        command = ["python", "-m", "indexer", "sync", source, f"indexes/{new}", "--model", model]
        how = (f"sync this folder, `{source}`, into a new index with {model}: "
               f"`{shlex.join(command)}` (or, on the Index page, *Your documents* → the same "
               f"folder, a new index name, model {model}); later syncs keep it current")
    elif path is not None and path.is_file():
        command = ["python", "-m", "indexer", "build", "--corpus", source, "--out",
                   f"indexes/{new}", "--model", model]
        how = (f"build its corpus file `{source}` again with {model}: `{shlex.join(command)}` "
               f"(or, on the Index page, *Build a new index* with model {model})")
    else:
        command = ["python", "-m", "indexer", "rebuild", f"indexes/{name}", "--model", model,
                   "--out", f"indexes/{new}"]
        how = f"re-encode its documents with {model}: `{shlex.join(command)}`"
    return (f"{name} was indexed with {stats.model}, which does not read this script; "
            f"{model} reads about 100 languages, Chinese among them. To search these documents "
            f"by meaning, {how}. Then choose {new} in the Search page's sidebar. Lexical search "
            "(BM25) already matches this query's words here as written.")
