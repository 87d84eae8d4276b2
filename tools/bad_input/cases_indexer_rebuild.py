"""Bad inputs to `python -m indexer rebuild SRC --model MODEL --out DST`."""

from __future__ import annotations

from collections.abc import Callable

from .probe import Case

OUT = ["--out", "{W}/o"]


def rebuild_cases(r: Callable[..., Case], M: list[str]) -> list[Case]:  # noqa: N803
    """The cases, made by `cases_indexer_cli`'s case maker `r` with its model flags `M`."""
    return [
        r("no arguments"),
        r("no --model", "{W}/idx", *OUT),
        r("no --out", "{W}/idx", *M),
        r("SRC that does not exist", "{W}/nope", *M, *OUT),
        r("SRC an empty string", "", *M, *OUT),
        r("SRC a file", "{W}/file.txt", *M, *OUT),
        r("SRC an empty folder", "{W}/empty", *M, *OUT),
        r("SRC the corpus file, not an index", "{W}/corpus.jsonl", *M, *OUT),
        r("SRC the index's manifest.json", "{W}/idx/manifest.json", *M, *OUT),
        r("SRC a training run folder", "{W}/runs/finished", *M, *OUT),
        r("SRC a URL", "http://example.com/idx", *M, *OUT),
        r("--out the source index itself", "{W}/idx", *M, "--out", "{W}/idx"),
        r("--out a folder inside the source", "{W}/idx", *M, "--out", "{W}/idx/e5"),
        r("--out a file", "{W}/idx", *M, "--out", "{W}/file.txt"),
        r("--out below a file", "{W}/idx", *M, "--out", "{W}/file.txt/idx"),
        r("--out a folder holding other things", "{W}/idx", *M, "--out", "{W}/busy"),
        r("--out an empty string", "{W}/idx", *M, "--out", ""),
        r("--model that does not exist", "{W}/idx", "--model", "{W}/no-model", *OUT),
        r("--model a folder that is not a model", "{W}/idx", "--model", "{W}/empty", *OUT),
        r("--model a file", "{W}/idx", "--model", "{W}/file.txt", *OUT),
        r("--model e5 (not a bundled name)", "{W}/idx", "--model", "e5", *OUT),
        r("--index fast (not a preset)", "{W}/idx", *M, *OUT, "--index", "fast"),
        r("--index ivfpq on 6 documents", "{W}/idx", *M, *OUT, "--index", "ivfpq"),
        r("--chunk-tokens 100000 (above the model's)", "{W}/idx", *M, *OUT, "--chunk-tokens",
          "100000"),
        r("--chunk-tokens 4 (too small)", "{W}/idx", *M, *OUT, "--chunk-tokens", "4"),
        r("--batch-size 0", "{W}/idx", *M, *OUT, "--batch-size", "0"),
        r("--shard-size abc", "{W}/idx", *M, *OUT, "--shard-size", "abc"),
        r("--corpus (rebuild reads the source's documents)", "{W}/idx", *M, *OUT, "--corpus",
          "{W}/corpus.jsonl"),
        r("--model minilm, the source's own model", "{W}/idx", *M, "--out", "{W}/o5", expect=0,
          note="re-encoded with the same model: the same fingerprint, a fresh copy"),
        r("--out an index that exists (a copy of the source)", "{W}/idx", *M, "--out", "{FRESH}",
          expect=0, note="replaced by the rebuilt version, as build replaces an index"),
        r("--backend int8 (not a backend)", "{W}/idx", *M, *OUT, "--backend", "int8"),
        r("--backend auto,torch (a list)", "{W}/idx", *M, *OUT, "--backend", "auto,torch"),
        r("--model e5-multilingual (the real use)", "{W}/idx", "--model", "e5-multilingual",
          "--out", "{W}/o6", expect=0, note="the 6 documents and their metadata, e5's vectors"),
    ]
