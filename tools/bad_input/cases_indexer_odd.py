"""Second-round bad inputs to the indexer and the encoder (issue 26): text that shows nothing
(control, zero-width, a byte-order mark), files that start with a byte-order mark, metadata keys
holding quotes or backslashes, Ray settings without the Ray engine, IVF indexes emptied by
deletes, masks beyond the model's window, a disk that fills up. A case whose result is wrong
although nothing was raised fails an `assert`, so the probe marks it."""

from __future__ import annotations

import json
from collections.abc import Callable

from .probe import Case

BOM = b"\xef\xbb\xbf"
INVISIBLE = ["\u200b\u200b", "\x01\x02\x03", "\ufeff", "\u200d\u2060 \u00ad"]
ODD_KEYS = ['say "hi"', "C:\\path", "tab\there"]


def _lines(rows) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


FILES: dict[str, str | bytes] = {
    "bom.jsonl": BOM + _lines([{"id": "b1", "text": "the first row"},
                               {"id": "b2", "text": "the second row"}]).encode(),
    "bom.csv": BOM + b"id,text\nb1,the first row\nb2,the second row\n",
    "invisible.jsonl": _lines([{"id": "v1", "text": "visible text"}] + [
        {"id": f"x{i}", "text": t} for i, t in enumerate(INVISIBLE)]),
    "invisible-only.jsonl": _lines([{"id": f"x{i}", "text": t} for i, t in enumerate(INVISIBLE)]),
}


def cli_cases(case: Callable[[str], Callable[..., Case]], M: list[str]  # noqa: N803
              ) -> dict[str, list[Case]]:
    """Per `python -m indexer` command, made by `cases_indexer_cli`'s case maker."""
    b, s = case("build"), case("search")
    return {
        "build": [
            b("--workers 4 without --engine ray", "--corpus", "{W}/corpus.jsonl", "--out",
              "{W}/o", *M, "--workers", "4"),
            b("--ray-address without --engine ray", "--corpus", "{W}/corpus.jsonl", "--out",
              "{W}/o", *M, "--ray-address", "127.0.0.1:6379"),
            b("--engine ray --workers 1000 (more than the CPUs)", "--corpus", "{W}/corpus.jsonl",
              "--out", "{W}/o-ray", *M, "--engine", "ray", "--workers", "1000", expect=0,
              note="runs as many workers as there are CPUs, says so, records those that ran"),
            b("--corpus JSONL that starts with a byte-order mark", "--corpus", "{W}/bom.jsonl",
              "--out", "{W}/o-bom1", *M, expect=0, note="2 documents: the first row is kept"),
            b("--corpus CSV that starts with a byte-order mark", "--corpus", "{W}/bom.csv",
              "--out", "{W}/o-bom2", *M, expect=0, note="2 documents, ids from the id column"),
            b("--corpus rows of only zero-width / control characters / a BOM", "--corpus",
              "{W}/invisible.jsonl", "--out", "{W}/o-inv", *M, expect=0,
              note="those rows are skipped as empty text, and reported; the other is indexed"),
            b("--corpus whose every text is invisible characters", "--corpus",
              "{W}/invisible-only.jsonl", "--out", "{W}/o", *M),
        ],
        "search": [s(f"a query of {name}", "{W}/idx", text) for name, text in (
            ("zero-width spaces", "\u200b\u200b"), ("control characters", "\x01\x02"),
            ("a byte-order mark", "\ufeff"), ("soft hyphens and joiners", "\u00ad\u200d"))],
    }


def _odd_keys(ws, minilm) -> str:
    from indexer import SemanticIndex, build_index

    docs = [{"id": f"k{i}", "text": f"note {i} on oil", "metadata": {k: f"v{i}" for k in
                                                                     ODD_KEYS}}
            for i in range(2)]
    out = ws.root / "lib-oddkeys"
    if not out.exists():
        build_index(docs, out, model=minilm(), preset="flat")
    index = SemanticIndex.open(out, encoder=minilm())
    found = {k: ([h.doc_id for h in index.search("oil", filter={k: "v1"})],
                 index.field_values(k)) for k in ODD_KEYS}
    assert all(hits == ["k1"] and values == ["v0", "v1"] for hits, values in found.values()), \
        found
    return f"each key filters to k1 and lists ['v0', 'v1']: {sorted(found)}"


def _emptied(ws, minilm, preset: str) -> str:
    from indexer import SemanticIndex, build_index

    out = ws.root / f"lib-emptied-{preset}"
    docs = [{"id": f"e{i}", "text": f"story {i} about oil prices and the cup final"}
            for i in range(40)]
    build_index(docs, out, model=minilm(), preset=preset)
    index = SemanticIndex.open(out, encoder=minilm())
    index.delete([d["id"] for d in docs])
    index.compact()
    index.save()
    index = SemanticIndex.open(out, encoder=minilm())
    index.add([{"id": "new", "text": "penguins swim in cold water"}])
    index.save()
    hits = SemanticIndex.open(out, encoder=minilm()).search("penguins")
    assert [h.doc_id for h in hits] == ["new"], hits
    return "1 document; search finds it"


def _full_disk(ws, minilm) -> str:
    """add + save on a real disk that fills up: a 3 MiB tmpfs mounted in the workspace (root)."""
    from indexer import DiskFullError, SemanticIndex, build_index

    from .small_disk import fill, small_disk

    with small_disk(ws.root / "small-disk") as disk:
        out = disk / "idx"
        build_index([{"id": f"d{i}", "text": f"story {i} on oil"} for i in range(6)], out,
                    model=minilm(), preset="flat")
        filler = fill(disk)
        index = SemanticIndex.open(out, encoder=minilm())
        try:
            index.add([{"id": f"n{i}", "text": "new text " * 200} for i in range(200)])
            index.save()
        except DiskFullError:
            filler.unlink()
            kept = SemanticIndex.open(out, encoder=minilm()).stats().documents
            assert kept == 6, kept
            raise
        raise AssertionError("the disk did not fill up")


def library_cases(i: Callable[..., Case], e: Callable[..., Case],
                  minilm: Callable) -> tuple[list[Case], list[Case]]:
    """(indexer library cases, encoder library cases), made by `cases_library`'s makers."""

    def build(text: str = "x", **kw):
        from indexer import build_index

        return lambda ws: build_index([{"id": "a", "text": text}], ws.root / "lib-out",
                                      model=minilm(), **kw)

    def read_corpus(path):
        from indexer import read_corpus

        return read_corpus(path)

    indexer = [
        i("build_index(..., workers=4) (engine local)", build(workers=4)),
        i("build_index(..., ray_address='auto') (engine local)", build(ray_address="auto")),
        i("build_index(..., engine='ray', workers=0)", build(engine="ray", workers=0)),
        i("build_index with a document of only zero-width characters",
          build(text="\u200b\ufeff")),
        i("index.search of control characters only", lambda ws: _open(ws, minilm).search(
            "\x00\x01\x1b")),
        i("read_corpus of a CSV that starts with a byte-order mark",
          lambda ws: [d.id for d in read_corpus(ws.root / "bom.csv").documents],
          expect="accepted", note="['b1', 'b2']: the header's first field is 'id'"),
        i("metadata keys holding \", \\ or a tab: filter and field_values",
          lambda ws: _odd_keys(ws, minilm), expect="accepted",
          note="every key that info lists filters and lists its values"),
        i("index.add after every ivfpq document was deleted and compacted",
          lambda ws: _emptied(ws, minilm, "ivfpq"), expect="accepted",
          note="the trained quantiser is kept; the new document is found"),
        i("compact, then add, of an emptied ivfpq-disk index",
          lambda ws: _emptied(ws, minilm, "ivfpq-disk"), expect="accepted",
          note="an empty lists file is written that can be mapped"),
        i("index.add + save on a disk that fills up (a 3 MiB tmpfs)",
          lambda ws: _full_disk(ws, minilm),
          note="DiskFullError names the folder and the free space; the 6 documents published "
               "before are all still there"),
    ]
    window = "word " * 600
    encoder = [
        e("encode(['\\u200b\\ufeff']) (nothing visible)",
          lambda ws: minilm().encode(["\u200b\ufeff"])),
        e("fill_mask with [MASK]s beyond the model's window",
          lambda ws: minilm().fill_mask("The [MASK] sat. " + window + "A [MASK] and a [MASK].")),
    ]
    return indexer, encoder


def _open(ws, minilm):
    from indexer import SemanticIndex

    return SemanticIndex.open(ws.fresh(), encoder=minilm())
