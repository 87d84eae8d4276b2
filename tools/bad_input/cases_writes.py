"""Third-round bad inputs to the indexer (issue 41): writes that would break later reads (a value
of another type than its field's, an integer beyond 64 bits, an id twice, a text over the limit,
a lone surrogate), on the folder store, on Milvus and over HTTP; absurd numbers in searches; and
failures that came late and named nothing (a migration into Milvus of what Milvus cannot hold, a
milvus-lite file in a read-only folder). Every case that writes counts the index's documents
before and after: a refused write must leave them as they were."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

from .probe import Case, Outcome, call, cli

DOC = {"id": "new-1", "text": "a new story about oil"}
SURROGATE = "bad \ud800 text"  # what JSON's "\ud800" decodes to: half a UTF-16 pair


def _lines(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)  # ensure_ascii: \ud800 stays an escape


FILES: dict[str, str] = {
    "surrogate.jsonl": _lines([{"id": "s1", "text": "a good row"},
                               {"id": "s2", "text": SURROGATE}]),
    "year-types.jsonl": _lines([{"id": "y1", "text": "typed year", "year": 2004},
                                {"id": "y2", "text": "worded year", "year": "two thousand"}]),
    "bigint.jsonl": _lines([{"id": "b1", "text": "a good row", "n": 1},
                            {"id": "b2", "text": "a huge number", "n": 2**70}]),
    "long-text.jsonl": _lines([{"id": "long", "text": "word " * 20_001}]),
}


def _documents(target) -> int:
    from indexer import SemanticIndex

    return len(SemanticIndex.open(target))


def counted(run_on: Callable[[Path | str], Callable[..., Outcome]], *, fresh=None,
            added: int = 0) -> Callable[..., Outcome]:
    """A case runner on a private index (`fresh(ws)`, default a copy of W/idx): the documents are
    counted before and after, and a refused write that changed them (or an accepted one that
    added other than `added`) is marked."""

    def run(ws) -> Outcome:
        target = (fresh or (lambda w: w.fresh()))(ws)
        before = _documents(target)
        outcome = run_on(target)(ws)
        after = _documents(target)
        want = before if outcome.refused else before + added
        outcome.message += f" · documents: {before} before, {after} after"
        if after != want:
            outcome.message += f" (expected {want})"
            outcome.traceback = True  # the probe's mark for a result that is wrong
        return outcome

    return run


def _write(how: str, docs: list[dict], minilm) -> Callable:
    def on(target):
        def change(ws):
            from indexer import SemanticIndex

            index = SemanticIndex.open(target, encoder=minilm())
            chunks = getattr(index, how)(docs)
            index.save()
            return chunks

        return call(change)

    return on


def _milvus(ws) -> str:
    """A milvus-lite copy of W/idx, made once (the probe's Milvus store)."""
    from indexer.migrate import migrate

    db = ws.root / "milvus-store" / "w.db"
    target = f"milvus://{db}?collection=idx"
    if not db.exists():
        migrate(ws.root / "idx", target)
    return target


def _old_index(ws, name: str, doc: dict, minilm) -> Path:
    """An index holding `doc` as one written before writes were checked (the range check off
    while it is built), beside a good document."""
    import indexer.validation
    from indexer import build_index

    out = ws.root / f"old-{name}"
    if not out.exists():
        check = indexer.validation.range_problem
        indexer.validation.range_problem = lambda value: None
        try:
            build_index([{"id": "fine", "text": "a fine document"}, doc], out, model=minilm(),
                        preset="flat")
        finally:
            indexer.validation.range_problem = check
    return out


def _hybrid_huge_weights(ws, minilm) -> str:
    from indexer import SemanticIndex

    hits = SemanticIndex.open(ws.fresh(), encoder=minilm()).search(
        "oil prices", k=3, mode="hybrid", fusion="minmax", weights=(1e308, 1e308))
    scores = [h.score for h in hits]
    assert scores and all(math.isfinite(s) for s in scores), scores
    return f"scores {', '.join(f'{s:.3f}' for s in scores)}"


def _read_only_db(ws) -> Outcome:
    from .small_disk import NoSmallDisk, read_only

    db = ws.root / "ro-store" / "w.db"
    if not db.exists():
        from indexer.migrate import migrate

        migrate(ws.root / "idx", f"milvus://{db}?collection=idx")
    try:
        with read_only(db if db.is_dir() else db.parent):
            return cli("indexer", "info", f"milvus://{db}?collection=idx")(ws)
    except NoSmallDisk as exc:
        return Outcome("not tried", f"cannot make a folder read-only here: {exc}",
                       traceback=True)


def library_cases(minilm: Callable) -> list[Case]:
    """Entry "indexer library"."""

    def lib(bad: str, run, expect: str = "refused", note: str = "") -> Case:
        return Case("indexer library", bad, run, expect, note)

    def search(**kw):
        from indexer import SemanticIndex

        return call(lambda ws: SemanticIndex.open(ws.fresh(), encoder=minilm()).search(**kw))

    def milvus_write(how: str, docs: list[dict]):
        return counted(_write(how, docs, minilm), fresh=_milvus)

    return [
        lib("index.upsert of 'year': 'soon' where the index's year holds int",
            counted(_write("upsert", [{**DOC, "metadata": {"year": "soon"}}], minilm)),
            note="names the document and the field; the field stays int (it turned mixed, "
                 "and every range filter on it failed)"),
        lib("index.add of 'year': 2004.5 (an int field takes a float)",
            counted(_write("add", [{**DOC, "metadata": {"year": 2004.5}}], minilm), added=1),
            "accepted", "the field becomes float: numbers to every filter"),
        lib("index.add of a metadata integer 2**64",
            counted(_write("add", [{**DOC, "metadata": {"n": 2**64}}], minilm)),
            note="no store reads it back (searches answered 422, migrate failed)"),
        lib("index.add of the same id twice in one batch",
            counted(_write("add", [DOC, {**DOC, "text": "again"}], minilm))),
        lib("index.upsert of the same id twice in one batch",
            counted(_write("upsert", [DOC, {**DOC, "text": "again"}], minilm)),
            note="it kept the second silently"),
        lib("index.add of a 10,000,001-character text",
            counted(_write("add", [{**DOC, "text": "a" * 10_000_001}], minilm)),
            note="the library's bound (MAX_TEXT_CHARS; HTTP writes keep 100,000): a sync must "
                 "be able to update a long report, so the bound is against absurd input only"),
        lib("index.add of a text holding a lone surrogate (\\ud800)",
            counted(_write("add", [{**DOC, "text": SURROGATE}], minilm))),
        lib("index.add of a metadata value holding a lone surrogate",
            counted(_write("add", [{**DOC, "metadata": {"note": SURROGATE}}], minilm))),
        lib("build_index of year 1 in one document and 'one' in the next",
            call(lambda ws: __import__("indexer").build_index(
                [{"id": "a", "text": "x", "metadata": {"year": 1}},
                 {"id": "b", "text": "y", "metadata": {"year": "one"}}],
                ws.root / "lib-kinds", model=minilm()))),
        lib("MilvusIndex.upsert of 'year': 'soon' where year holds int",
            milvus_write("upsert", [{**DOC, "metadata": {"year": "soon"}}]),
            note="the same check as the folder store's, again under Milvus's write lock"),
        lib("MilvusIndex.add of a metadata integer 2**64",
            milvus_write("add", [{**DOC, "metadata": {"n": 2**64}}])),
        lib("MilvusIndex.upsert of the same id twice", milvus_write("upsert", [DOC, DOC])),
        lib("index.search('oil', filter={'year': 2**64})", search(queries="oil",
                                                                  filter={"year": 2**64})),
        lib("index.search(['oil', '\\ud800'])", search(queries=["oil", "\ud800"])),
        lib("index.search('oil', mode='dense', weights=(1, 1))",
            search(queries="oil", mode="dense", weights=(1, 1)),
            note="weights were ignored without a word"),
        lib("index.search(mode='hybrid', fusion='minmax', weights=(1e308, 1e308))",
            call(lambda ws: _hybrid_huge_weights(ws, minilm)), "accepted",
            "finite scores, as with (1, 1) (they were inf: 'score': null over HTTP)"),
    ]


def encoder_cases(minilm: Callable) -> list[Case]:
    """Entry "encoder library"."""
    return [
        Case("encoder library", "encode(['ok', '\\ud800 half a pair'])",
             call(lambda ws: minilm().encode(["ok", "\ud800 half a pair"]))),
        Case("encoder library", "inspect('apple \\udfff')",
             call(lambda ws: minilm().inspect("apple \udfff"))),
    ]


def cli_cases(case: Callable[[str], Callable[..., Case]], minilm: Callable,
              M: list[str]) -> dict[str, list[Case]]:  # noqa: N803
    """Per `python -m indexer` command, made by `cases_indexer_cli`'s case maker."""
    b, s = case("build"), case("search")
    add = "python -m indexer add"

    def adding(path: str, expect: str | int = "refused", note: str = "", added: int = 0):
        def on(target):
            return cli("indexer", "add", str(target), "--corpus", path)

        return Case(add, f"--corpus {path.split('/')[-1]}", counted(on, added=added), expect,
                    note)

    def migrating(name: str, doc: dict, bad: str) -> Case:
        def run(ws) -> Outcome:
            src = _old_index(ws, name, doc, minilm)
            return cli("indexer", "migrate", str(src),
                       f"milvus://{ws.root}/m-{name}.db?collection=idx")(ws)

        return Case("python -m indexer migrate", bad, run,
                    note="checked before anything is written, naming the document and the "
                         "limit (a pymilvus traceback naming nothing, after a staging pair)")

    return {
        "build": [
            b("--corpus with a row holding a lone surrogate (JSON \\ud800)", "--corpus",
              "{W}/surrogate.jsonl", "--out", "{W}/o-sur", *M, expect=0,
              note="the row is skipped and reported; the rest is indexed"),
            b("--corpus whose year is 2004 in one row, 'two thousand' in the next", "--corpus",
              "{W}/year-types.jsonl", "--out", "{W}/o-kinds", *M, expect=0,
              note="the later row is skipped and reported: a field keeps one type"),
            b("--corpus with a metadata integer beyond 64 bits", "--corpus",
              "{W}/bigint.jsonl", "--out", "{W}/o-big", *M, expect=0,
              note="the row is skipped and reported"),
        ],
        "add": [
            adding("{W}/year-types.jsonl", 0, "the row whose year is 'two thousand' after one "
                                              "of 2004 is skipped and reported", added=1),
            adding("{W}/bigint.jsonl", 0, "the row with an integer beyond 64 bits is skipped "
                                          "and reported", added=1),
            adding("{W}/long-text.jsonl", 0, "100,005 characters: over the service's 100,000 a "
                                             "write, within the library's 10,000,000", added=1),
            adding("{W}/surrogate.jsonl", 0, "the bad row is skipped and reported, the good "
                                             "one added", added=1),
        ],
        "search": [
            s("--filter with an integer beyond 64 bits", "{W}/idx", "oil", "--filter",
              '{"year": 99999999999999999999999}'),
            s("a query holding a byte that is not UTF-8 (argv's surrogate escape)", "{W}/idx",
              "oil \udcff"),
        ],
        "migrate": [
            migrating("bigint", {"id": "big", "text": "x", "metadata": {"n": 2**70}},
                      "SRC holding an integer beyond 64 bits (written before writes were "
                      "checked)"),
            migrating("longid", {"id": "i" * 10_000, "text": "a long id"},
                      "SRC holding a 10,000-character id"),
            migrating("onetoken", {"id": "one-token", "text": "a" * 100_001},
                      "SRC holding a 100,001-character word (one [UNK] chunk)"),
            Case("python -m indexer migrate", "a milvus-lite .db in a read-only folder "
                 "(indexer info on it)", _read_only_db,
                 note="says the folder is read-only, not that another process holds it"),
        ],
    }


def service_cases() -> list[Case]:
    """Entry "service (HTTP)": document writes the library refuses answer 422 naming the
    document and the field, nothing written (documents counted in W/service/news)."""
    from .cases_service import ENTRY
    from .service_http import request

    docs = "/v1/indexes/news/documents"

    def posted(documents: list[dict]):
        def on(target):
            return request("POST", docs, {"documents": documents})

        return counted(on, fresh=lambda ws: _service_news(ws))

    rows = [
        ("documents: year 'soon' where year holds int", [{**DOC, "metadata": {"year": "soon"}}],
         ("'new-1'", "'year'", "holds int")),
        ("documents: a metadata integer 2**64", [{**DOC, "metadata": {"year": 2**64}}],
         ("'new-1'", "64 bits")),
        ("documents: the same id twice in one batch", [DOC, {**DOC, "text": "again"}],
         ("'new-1'", "documents[1]")),
        ("documents: a 100,001-character text", [{**DOC, "text": "a" * 100_001}],
         ("'new-1'", "100,000")),
        ("documents: a text holding a lone surrogate", [{**DOC, "text": SURROGATE}],
         ("'new-1'", "lone surrogate")),
    ]
    return [Case(ENTRY, bad, posted(documents), 422, names=names, unit="HTTP")
            for bad, documents, names in rows]


def _service_news(ws) -> Path:
    from .service_http import request

    request("GET", "/health")(ws)  # the probe's client, made once, copies W/idx there
    return ws.root / "service" / "news"
