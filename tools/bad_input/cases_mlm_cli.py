"""Bad inputs to the MLM commands of `python -m training` (mlm, mlm-heads, mlm-experiment).
Nothing here trains: every case is refused by argparse, by the config and file checks that run
before a model loads, or by the model load itself (W/corpus.jsonl, minilm, 32 tokens). A corpus
file in any format the indexer reads is accepted, so its cases are the refused ones: no text
column, no header, every row bad, not the format its name says."""

from __future__ import annotations

import json
import uuid

from .probe import Case, Outcome, cli

QUICK = ["--batch-size", "2", "--max-length", "32", "--max-steps", "1", "--no-progress"]


def _mlm(bad: str, *flags: str, corpus: str | None = "{W}/corpus.jsonl",
         model: str | None = "minilm", out: str | None = None,
         command: tuple[str, ...] = ("mlm",), expect: str | int = "refused",
         note: str = "") -> Case:
    def run(ws) -> Outcome:
        target = out if out is not None else str(ws.root / "runs" / uuid.uuid4().hex[:8])
        argv = [*command, *(["--model", model] if model is not None else []),
                *(["--corpus", corpus] if corpus is not None else []),
                *(["--out", target] if target else []), *QUICK, *flags]
        return cli("training", *argv)(ws)

    return Case(f"python -m training {command[0]}", bad, run, expect, note)


def _resume_other() -> Case:
    """A run folder whose run.json records other settings, then `--resume` into it."""

    def run(ws) -> Outcome:
        out = ws.root / "runs" / uuid.uuid4().hex[:8]
        out.mkdir(parents=True)
        (out / "run.json").write_text(json.dumps(
            {"format": 1, "kind": "mlm", "identity": {"model": "e5-multilingual"},
             "finished": False, "stages_done": [{}]}), encoding="utf-8")
        return cli("training", "mlm", "--model", "minilm", "--corpus", "{W}/corpus.jsonl",
                   "--out", str(out), *QUICK, "--resume")(ws)

    return Case("python -m training mlm", "--resume with other settings", run)


def _restart() -> Case:
    """A start that fails at the model load, then the same with `--resume`: nothing was
    trained, so the run starts afresh and fails at the same load, not at the run folder."""

    def run(ws) -> Outcome:
        out = str(ws.root / "runs" / uuid.uuid4().hex[:8])
        argv = ["mlm", "--model", "{W}/no-model", "--corpus", "{W}/corpus.jsonl", "--out", out,
                *QUICK]
        first = cli("training", *argv)(ws)
        again = cli("training", *argv, "--resume")(ws)
        again.message = f"first: {first.message} → then: {again.message}"
        return again

    return Case("python -m training mlm", "--resume after a failed start", run,
                note="the run that never trained blocks nothing; the model error again")


MLM = [
    Case("python -m training mlm", "no flags at all", cli("training", "mlm")),
    _mlm("no --model", model=None),
    _mlm("no --corpus", corpus=None),
    _mlm("no --out", out=""),
    _mlm("--corpus that does not exist", corpus="{W}/nope.jsonl"),
    _mlm("--corpus an empty folder", corpus="{W}/empty"),
    _mlm("--corpus a folder without .txt/.md", corpus="{W}/txtless"),
    _mlm("--corpus an empty .jsonl", corpus="{W}/empty.jsonl"),
    _mlm("--corpus .xml", corpus="{W}/notes.xml"),
    _mlm("--corpus a .csv without a text column", corpus="{W}/wrongcols.csv"),
    _mlm("--corpus a .csv without a header row", corpus="{W}/noheader.csv"),
    _mlm("--corpus a .csv whose every row is bad", corpus="{W}/allbad.csv"),
    _mlm("--corpus a .tsv whose only row is malformed", corpus="{W}/sts.tsv",
         note="a quote left open runs to the end of the file: one row, wrong field count"),
    _mlm("--corpus a .parquet that is text", corpus="{W}/fake.parquet"),
    _mlm("--corpus with no valid row", corpus="{W}/bad.jsonl"),
    _mlm("--corpus whose texts are numbers/lists", corpus="{W}/numbers.jsonl"),
    _mlm("--text-field that no row has", "--text-field", "body"),
    _mlm("--text-field '' (empty)", "--text-field", ""),
    _mlm("--eval that does not exist", "--eval", "{W}/nope.jsonl"),
    _mlm("--mlm-probability 0", "--mlm-probability", "0"),
    _mlm("--mlm-probability 1e-9 (masks nothing)", "--mlm-probability", "1e-9",
         note="refused after the tokenizer loads: under 1 masked token a batch, loss 0"),
    _mlm("--corpus of [MASK] tokens only", corpus="{W}/masks.txt",
         note="special tokens are never masked: nothing to learn"),
    _mlm("--corpus one .txt document (no blank line)", corpus="{W}/one-doc.txt",
         note="nothing to hold out for the before/after scores: --eval FILE is the fix"),
    _mlm("--max-docs 1", "--max-docs", "1"),
    _mlm("--eval the --corpus file itself", "--eval", "{W}/corpus.jsonl"),
    _mlm("--eval held-out texts of [MASK] only", "--eval", "{W}/masks.txt"),
    _mlm("--mlm-probability 1.5", "--mlm-probability", "1.5"),
    _mlm("--mlm-probability nan", "--mlm-probability", "nan"),
    _mlm("--max-steps 0", "--max-steps", "0"),
    _mlm("--epochs inf", "--epochs", "inf"),
    _mlm("--epochs abc", "--epochs", "abc"),
    _mlm("--batch-size 0", "--batch-size", "0"),
    _mlm("--lr -1", "--lr", "-1"),
    _mlm("--warmup 1", "--warmup", "1"),
    _mlm("--max-length 4", "--max-length", "4"),
    _mlm("--eval-fraction 1", "--eval-fraction", "1"),
    _mlm("--max-eval 0", "--max-eval", "0"),
    _mlm("--max-docs 0", "--max-docs", "0"),
    _mlm("--save-steps 0", "--save-steps", "0"),
    _mlm("--seed -1", "--seed", "-1"),
    _mlm("--model that does not exist", model="{W}/no-model"),
    _mlm("--model a folder that is not a model", model="{W}/empty"),
    _mlm("--out an existing file", out="{W}/file.txt"),
    _mlm("--out below a file", out="{W}/file.txt/run"),
    _mlm("--out a folder that holds other files", out="{W}/busy"),
    _mlm("--out a finished fit run", out="{W}/runs/finished"),
    _mlm("--resume with nothing to resume", "--resume"),
    _resume_other(),
    _restart(),
]


def _heads(bad: str, *argv: str) -> Case:
    return Case("python -m training mlm-heads", bad, cli("training", "mlm-heads", *argv))


HEADS = [
    _heads("no name"),
    _heads("an unknown name", "bert-base"),
    _heads("the hub name of minilm", "sentence-transformers/all-MiniLM-L6-v2"),
    _heads("MiniLM (upper case)", "MiniLM"),
    _heads("'minilm ' (a trailing space)", "minilm "),
    _heads("e5 (a partial name)", "e5"),
    _heads("an empty name", ""),
    _heads("a model folder", "{W}/empty"),
    _heads("a path that does not exist", "{W}/no-model"),
    _heads("a data file", "{W}/sts.jsonl"),
    _heads("two names", "minilm", "e5-multilingual"),
    _heads("--steps 0", "minilm", "--steps", "0"),
    _heads("--steps -5", "minilm", "--steps", "-5"),
    _heads("--steps abc", "minilm", "--steps", "abc"),
    _heads("--steps 1.5", "minilm", "--steps", "1.5"),
    _heads("--steps nan", "minilm", "--steps", "nan"),
    _heads("--steps without a value", "minilm", "--steps"),
    _heads("--steps '' (empty)", "minilm", "--steps", ""),
    _heads("--model minilm (mlm's flag)", "--model", "minilm"),
    _heads("--corpus (mlm's flag)", "minilm", "--corpus", "{W}/corpus.jsonl"),
    _heads("--out (mlm's flag)", "minilm", "--out", "{W}/runs/heads"),
    _heads("--resume (mlm's flag)", "minilm", "--resume"),
    Case("python -m training mlm-heads", "--threads 0 (before the command)",
         cli("training", "--threads", "0", "mlm-heads", "minilm")),
]


def _ex(bad: str, kind: str, *flags: str, **kw) -> Case:
    return _mlm(bad, *flags, command=("mlm-experiment", kind), **kw)


EXPERIMENT = [
    Case("python -m training mlm-experiment", "no experiment name",
         cli("training", "mlm-experiment")),
    Case("python -m training mlm-experiment", "an unknown experiment",
         cli("training", "mlm-experiment", "layers", "--model", "minilm")),
    Case("python -m training mlm-experiment", "no --model",
         cli("training", "mlm-experiment", "mask-ratio", "--corpus", "{W}/corpus.jsonl")),
    _ex("mask-ratio without --corpus", "mask-ratio", corpus=None),
    _ex("mask-ratio without --out", "mask-ratio", out=""),
    _ex("mask-ratio --corpus that does not exist", "mask-ratio", corpus="{W}/nope.jsonl"),
    _ex("mask-ratio --corpus an empty .jsonl", "mask-ratio", corpus="{W}/empty.jsonl"),
    _ex("mask-ratio --mlm-probability 0", "mask-ratio", "--mlm-probability", "0"),
    _ex("mask-ratio --epochs inf", "mask-ratio", "--epochs", "inf"),
    _ex("mask-ratio --max-steps 0", "mask-ratio", "--max-steps", "0"),
    _ex("mask-ratio --batch-size 0", "mask-ratio", "--batch-size", "0"),
    _ex("mask-ratio --out an existing file", "mask-ratio", out="{W}/file.txt"),
    _ex("mask-ratio --model that does not exist", "mask-ratio", model="{W}/no-model"),
    _ex("nsp without --corpus", "nsp", corpus=None),
    _ex("nsp --sts-dev that does not exist", "nsp", "--sts-dev", "{W}/nope.jsonl"),
    _ex("nsp --sts-dev an NLI file", "nsp", "--sts-dev", "{W}/nli.jsonl"),
    _ex("fill-mask without --eval", "fill-mask", corpus=None, out=""),
    _ex("fill-mask --eval that does not exist", "fill-mask", "--eval", "{W}/nope.jsonl",
        corpus=None, out=""),
    _ex("fill-mask --eval an empty file", "fill-mask", "--eval", "{W}/empty.jsonl",
        corpus=None, out=""),
    _ex("fill-mask --model that does not exist", "fill-mask", "--eval", "{W}/corpus.jsonl",
        corpus=None, out="", model="{W}/no-model"),
    _ex("domain without --beir", "domain", corpus=None),
    _ex("domain without --out", "domain", "--beir", "{W}/beir", corpus=None, out=""),
    _ex("domain --beir that does not exist", "domain", "--beir", "{W}/nope", corpus=None),
    _ex("domain --beir with no train qrels", "domain", "--beir", "{W}/beir", corpus=None),
    _ex("domain --beir a file", "domain", "--beir", "{W}/file.txt", corpus=None),
]

COMMANDS = {"mlm": MLM, "mlm-heads": HEADS, "mlm-experiment": EXPERIMENT}
