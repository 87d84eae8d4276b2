"""Training pairs from what documents already carry, with no labels: (anchor, positive) texts for
MNRL with in-batch negatives (sentence-transformers' unsupervised recipes, GPL paper baselines).

Sources (`PAIR_SOURCES`):
- `title`: a document's title ↔ its first passage (when it has a title of its own);
- `heading`: a section heading ↔ the section's first passage (Markdown `#` headings in the text,
  else the sections the product's document readers record in `_layout` (a Word, web page or
  Markdown file's headings), else a `section` / `heading` field of the document's metadata);
- `neighbours`: consecutive passages of one document;
- `ict`: inverse cloze: one sentence ↔ the rest of its passage;
- `simcse`: a passage ↔ itself (dropout makes the two encodings differ: unsupervised SimCSE).

Pure functions over anything with `id`, `title`, `text` and `metadata` (a `common.corpus.Document`)
and the standard library only, so a benchmark can run them where nothing else of BERTScope is
installed.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PAIR_SOURCES = ("title", "heading", "neighbours", "ict", "simcse")
PASSAGE_WORDS = 64  # about 90 WordPiece tokens of English: inside a 128-token training window

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|(?<=[。！？；])")
_WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|\w+")  # a CJK character counts as a word
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_METADATA_HEADINGS = ("section", "heading")
_LAYOUT = "_layout"  # common.documents.LAYOUT_KEY (this module imports nothing of BERTScope)
_FILE_NAME = re.compile(r"^\S*[/\\]\S*$|\.(md|txt|pdf|html?|docx?|rst|csv|jsonl?)$",
                        re.IGNORECASE)  # a path without spaces, or a name ending as a file's


@dataclass(frozen=True)
class Pair:
    anchor: str
    positive: str
    source: str  # which of PAIR_SOURCES made it
    doc_id: str


def words(text: str) -> int:
    return len(_WORD.findall(text))


def sentences(text: str) -> list[str]:
    """`text` cut at sentence ends (English and Chinese punctuation) and blank lines."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        out.extend(s.strip() for s in _SENTENCE_END.split(block.replace("\n", " ")))
    return [s for s in out if words(s)]


def passages(text: str, size: int = PASSAGE_WORDS) -> list[str]:
    """Whole sentences packed into passages of about `size` words (a longer sentence alone)."""
    out: list[str] = []
    current: list[str] = []
    count = 0
    for sentence in sentences(text):
        n = words(sentence)
        if current and count + n > size:
            out.append(" ".join(current))
            current, count = [], 0
        current.append(sentence)
        count += n
    if current:
        out.append(" ".join(current))
    return out


def own_title(doc) -> str:
    """The document's title where it says something the text does not start with (a title the
    reader fell back to, such as the id, a file name or the text's own opening, is no pair)."""
    title = " ".join((doc.title or "").split())
    if words(title) < 2 or title == doc.id or _FILE_NAME.search(title):
        return ""
    return "" if " ".join(doc.text.split()).startswith(title) else title


def sections(doc) -> list[tuple[str, str]]:
    """(heading, section text) of the document: its Markdown headings, else the sections its
    reader recorded, else its metadata's heading."""
    found = list(_HEADING.finditer(doc.text))
    out = []
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(doc.text)
        body = doc.text[match.end():end].strip()
        if words(match.group(1)) and words(body):
            out.append((match.group(1).strip(), body))
    out = out or layout_sections(doc)
    if out:
        return out
    meta = doc.metadata or {}
    heading = next((str(meta[k]).strip() for k in _METADATA_HEADINGS
                    if isinstance(meta.get(k), str) and words(meta[k])), "")
    return [(heading, doc.text)] if heading else []


def layout_sections(doc) -> list[tuple[str, str]]:
    """(heading, section text) from the layout `common.documents` records in a document's
    metadata (`_layout`: spans of the text, each with the number of its section path "A > B");
    the heading is the path's last part, and the reader's copy of it opening the section is not
    part of the text. [] for a document without one."""
    layout = (doc.metadata or {}).get(_LAYOUT)
    names = layout.get("sections") if isinstance(layout, dict) else None
    spans = layout.get("spans") if isinstance(layout, dict) else None
    if not isinstance(names, list) or not isinstance(spans, list):
        return []
    texts: dict[int, list[str]] = {}
    for span in spans:
        if not (isinstance(span, list) and len(span) == 4):
            continue
        start, end, _page, number = span
        if all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end, number)) \
                and 0 <= number < len(names) and isinstance(names[number], str):
            texts.setdefault(number, []).append(doc.text[start:end])
    out = []
    for number, parts in texts.items():
        heading = names[number].rsplit(" > ", 1)[-1].strip()
        body = "\n\n".join(parts).strip()
        first, _, rest = body.partition("\n")
        if first.strip() == heading:
            body = rest.strip()
        if words(heading) and words(body):
            out.append((heading, body))
    return out


def document_pairs(doc, sources: Sequence[str], rng: random.Random,
                   size: int = PASSAGE_WORDS) -> list[Pair]:
    """The pairs of one document from each source in `sources`."""
    parts = passages(doc.text, size)
    pairs: list[Pair] = []

    def add(anchor: str, positive: str, source: str) -> None:
        pairs.append(Pair(anchor, positive, source, doc.id))

    if "title" in sources and (title := own_title(doc)) and parts:
        add(title, parts[0], "title")
    if "heading" in sources:
        for heading, body in sections(doc):
            first = passages(body, size)
            if first and heading != own_title(doc):
                add(heading, first[0], "heading")
    if "neighbours" in sources:
        for a, b in zip(parts, parts[1:], strict=False):
            add(a, b, "neighbours")
    if "ict" in sources:
        for part in parts:
            said = sentences(part)
            if len(said) >= 3:
                i = rng.randrange(len(said))
                add(said[i], " ".join(said[:i] + said[i + 1:]), "ict")
    if "simcse" in sources:
        for part in parts:
            add(part, part, "simcse")
    return pairs


def make_pairs(docs: Iterable, sources: Sequence[str], *, seed: int = 42,
               limit: int | None = None, size: int = PASSAGE_WORDS) -> list[Pair]:
    """Every document's pairs from `sources`, duplicates dropped, shuffled with `seed`; at most
    `limit`, taken evenly across the sources that made any (a source with fewer keeps all)."""
    unknown = [s for s in sources if s not in PAIR_SOURCES]
    if unknown:
        raise ValueError(f"Unknown pair source {unknown[0]!r}. Valid: {', '.join(PAIR_SOURCES)}")
    rng = random.Random(seed)
    seen: set[tuple[str, str]] = set()
    by_source: dict[str, list[Pair]] = {s: [] for s in sources}
    for doc in docs:
        for pair in document_pairs(doc, sources, rng, size):
            key = (pair.anchor, pair.positive)
            if key not in seen:
                seen.add(key)
                by_source[pair.source].append(pair)
    for found in by_source.values():
        rng.shuffle(found)
    chosen = _even_share(by_source, limit)
    rng.shuffle(chosen)
    return chosen


def _even_share(by_source: dict[str, list[Pair]], limit: int | None) -> list[Pair]:
    if limit is None or sum(map(len, by_source.values())) <= limit:
        return [p for found in by_source.values() for p in found]
    take = {s: 0 for s in by_source}
    left = limit
    open_ = [s for s in by_source if by_source[s]]
    while left and open_:  # water-filling: equal shares, a small source's rest to the others
        share = max(left // len(open_), 1)
        for s in list(open_):
            extra = min(share, len(by_source[s]) - take[s], left)
            take[s] += extra
            left -= extra
            if take[s] == len(by_source[s]):
                open_.remove(s)
            if not left:
                break
    return [p for s, found in by_source.items() for p in found[:take[s]]]


def count_sources(pairs: Iterable[Pair]) -> dict[str, int]:
    return dict(Counter(p.source for p in pairs))
