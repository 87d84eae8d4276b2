"""Bad inputs to each command of `python -m training`. Every run is tiny (6 pairs, minilm, 32
tokens): the point is what the user reads, not the model."""

from __future__ import annotations

import json
import uuid

from .probe import Case, Outcome, cli

QUICK = ["--batch-size", "2", "--max-length", "32", "--no-progress", "--eval-steps", "2"]


def _fit(bad: str, *flags: str, train: str = "{W}/sts.jsonl", loss: str | None = "cosine",
         model: str = "minilm", out: str | None = None, expect: str | int = "refused",
         note: str = "", command: tuple[str, ...] = ("fit",)) -> Case:
    def run(ws) -> Outcome:
        target = out or str(ws.root / "runs" / uuid.uuid4().hex[:8])
        argv = [*command, "--model", model, "--train", train, *(["--loss", loss] if loss else []),
                "--out", target, *QUICK, *flags]
        return cli("training", *argv)(ws)

    return Case(f"python -m training {' '.join(command)}", bad, run, expect, note)


def _restart(bad: str, *, resume: bool) -> Case:
    """A start that fails (a model that does not exist), then the right command again."""

    def run(ws) -> Outcome:
        out = str(ws.root / "runs" / uuid.uuid4().hex[:8])
        argv = ["fit", "--train", "{W}/sts.jsonl", "--loss", "cosine", "--out", out, *QUICK]
        first = cli("training", *argv, "--model", "{W}/no-model")(ws)
        again = cli("training", *argv, "--model", "minilm", *(["--resume"] if resume else []))(ws)
        again.message = f"first: {first.message} → then: {again.message}"
        return again

    return Case("python -m training fit", bad, run, 0,
                "a run that never trained leaves nothing that blocks the next start")


def _recipe(bad: str, name: str) -> Case:
    def run(ws) -> Outcome:
        out = str(ws.root / "runs" / uuid.uuid4().hex[:8])
        return cli("training", "fit", "--config", f"{{W}}/recipes/{name}.json", "--data", "{W}",
                   "--out", out, "--no-progress")(ws)

    return Case("python -m training fit", bad, run)


def _killed_mid_checkpoint() -> Case:
    """A run whose last checkpoint was cut short by a kill (config files only), then --resume:
    the partial checkpoint is removed (said) and the run resumes from the last whole one."""

    def run(ws) -> Outcome:
        out = ws.root / "runs" / uuid.uuid4().hex[:8]
        argv = ["fit", "--model", "minilm", "--train", "{W}/sts.jsonl", "--loss", "cosine",
                "--out", str(out), *QUICK, "--keep-checkpoints"]
        first = cli("training", *argv)(ws)
        run_json = json.loads((out / "run.json").read_text(encoding="utf-8"))
        (out / "run.json").write_text(json.dumps({**run_json, "finished": False,
                                                  "stages_done": []}), encoding="utf-8")
        partial = out / "checkpoints" / "stage-0" / "checkpoint-99"
        partial.mkdir(parents=True)
        (partial / "config.json").write_text("{}", encoding="utf-8")
        again = cli("training", *argv, "--resume")(ws)
        again.message = f"first: {first.message} → then: {again.message}"
        return again

    return Case("python -m training fit", "--resume after a kill while a checkpoint was written",
                run, 0, "the partial checkpoint is removed, saying so; the last whole one resumes")


FIT = [
    Case("python -m training fit", "no flags at all", cli("training", "fit")),
    _fit("--model that does not exist", model="{W}/no-model"),
    _fit("--model a folder that is not a model", model="{W}/empty"),
    _fit("--model a data file", model="{W}/sts.jsonl"),
    _fit("--model an empty string", model=""),
    _fit("--train that does not exist (and no network)", train="{W}/nope.jsonl"),
    _fit("--train a folder", train="{W}/empty"),
    _fit("--train .xml", train="{W}/sts.xml"),
    _fit("--train with other column names", train="{W}/qa.jsonl"),
    _fit("--train whose every row is bad", train="{W}/allbad.jsonl"),
    _fit("--train scores on a 0-100 scale", train="{W}/range.jsonl"),
    _fit("--train TSV with a broken quote", train="{W}/sts.tsv"),
    _fit("--train scores on a 0-1 scale", train="{W}/sts01.jsonl", expect=0,
         note="trains; warns that the scores are read on a 0-1 scale, not divided by 5"),
    _fit("--train with a non-UTF-8 line", train="{W}/latin1.jsonl", expect=0,
         note="the line is a reported bad row; the rest trains"),
    _fit("--loss huber", loss="huber"),
    _fit("no --loss", loss=None, expect=0,
         note="takes the data kind's default loss (scored pairs: cosent) and logs which"),
    _fit("--loss softmax on STS pairs", loss="softmax"),
    _fit("--loss given 3 times for 1 --train", "--loss", "cosent", "--loss", "mnrl"),
    _fit("--epochs inf", "--epochs", "inf"),
    _fit("--epochs 0", "--epochs", "0"),
    _fit("--epochs abc", "--epochs", "abc"),
    _fit("--lr inf", "--lr", "inf"),
    _fit("--lr 0", "--lr", "0"),
    _fit("--warmup 1", "--warmup", "1"),
    _fit("--seed -1", "--seed", "-1"),
    _fit("--max-length 4", "--max-length", "4"),
    _fit("--max-length 100000", "--max-length", "100000"),
    _fit("--batch-size 0", "--batch-size", "0"),
    _fit("--eval-steps 0", "--eval-steps", "0"),
    _fit("--max-rows 0", "--max-rows", "0"),
    _fit("--pooling sum", "--pooling", "sum"),
    _fit("--prompt qurey (typo)", "--prompt", "qurey"),
    _fit("--dev with one pair", "--dev", "{W}/one.jsonl"),
    _fit("--dev whose gold scores are all equal", "--dev", "{W}/const.jsonl"),
    _fit("--dev an NLI file", "--dev", "{W}/nli.jsonl"),
    _fit("--out an existing file", out="{W}/file.txt"),
    _fit("--out below a file", out="{W}/file.txt/run"),
    _fit("--out a folder that holds other files", out="{W}/busy"),
    _fit("--out a finished run", out="{W}/runs/finished"),
    _fit("--resume with nothing to resume", "--resume"),
    _restart("rerun after a failed start", resume=False),
    _restart("--resume after a failed start", resume=True),
    _killed_mid_checkpoint(),
    _fit("--dev the --train file itself", "--dev", "{W}/sts.jsonl"),
    _fit("--dev a byte copy of the --train file", "--dev", "{W}/sts-copy.jsonl"),
    _recipe("a recipe whose dev set is a copy of its training file", "dev-is-train"),
    _recipe("a recipe with 1000 cross-validation folds on 2 judged queries", "folds"),
    Case("python -m training fit", "--threads 0 (before the command)",
         cli("training", "--threads", "0", "fit", "--model", "minilm", "--train",
             "{W}/sts.jsonl", "--loss", "cosine", "--out", "{W}/runs/t0")),
]


def _ev(bad: str, *argv: str, expect: str | int = "refused", note: str = "") -> Case:
    return Case("python -m training evaluate", bad, cli("training", "evaluate", *argv), expect,
                note)


EVALUATE = [
    _ev("no model, no task"),
    _ev("no --sts and no --beir", "minilm"),
    _ev("a model that does not exist", "{W}/no-model", "--sts", "{W}/sts.jsonl"),
    _ev("a folder that is not a model", "{W}/empty", "--sts", "{W}/sts.jsonl"),
    _ev("--sts that does not exist", "minilm", "--sts", "{W}/nope.jsonl"),
    _ev("--sts a folder", "minilm", "--sts", "{W}/empty"),
    _ev("--sts an NLI file", "minilm", "--sts", "{W}/nli.jsonl"),
    _ev("--sts with one pair", "minilm", "--sts", "{W}/one.jsonl"),
    _ev("--sts whose gold scores are all equal", "minilm", "--sts", "{W}/const.jsonl"),
    _ev("--sts with other column names", "minilm", "--sts", "{W}/qa.jsonl"),
    _ev("--sts where the model scores every pair alike", "minilm", "--sts", "{W}/same.jsonl",
        "--json", "{W}/same-scores.json", expect=0,
        note="Spearman 0 (no correlation), never NaN"),
    _ev("--sts on a 0-1 scale", "minilm", "--sts", "{W}/sts01.jsonl", expect=0,
        note="Spearman does not depend on the scale"),
    _ev("--beir that does not exist", "minilm", "--beir", "{W}/nope"),
    _ev("--beir queries with 'id'/'query' fields", "minilm", "--beir", "{W}/beir-qfield"),
    _ev("--beir queries with a malformed line", "minilm", "--beir", "{W}/beir-qjson"),
    _ev("--beir corpus rows without _id", "minilm", "--beir", "{W}/beir-cid"),
    _ev("--beir qrels score 'abc'", "minilm", "--beir", "{W}/beir-abc"),
    _ev("--beir qrels separated by spaces", "minilm", "--beir", "{W}/beir-2col"),
    _ev("--split that has no qrels", "minilm", "--beir", "{W}/beir", "--split", "dev"),
    _ev("--prompt qurey (typo)", "minilm", "--sts", "{W}/sts.jsonl", "--prompt", "qurey"),
    _ev("--batch-size 0", "minilm", "--sts", "{W}/sts.jsonl", "--batch-size", "0"),
    _ev("--json into a folder that does not exist", "minilm", "--sts", "{W}/sts.jsonl",
        "--json", "{W}/nope/scores.json"),
    _ev("--json naming a folder", "minilm", "--sts", "{W}/sts.jsonl", "--json", "{W}/empty"),
    _ev("--backend onnx_int8 (underscore)", "minilm", "--sts", "{W}/sts.jsonl", "--backend",
        "onnx_int8"),
    _ev("--backend cuda (not a backend)", "minilm", "--sts", "{W}/sts.jsonl", "--backend",
        "cuda"),
    _ev("--backend an empty string", "minilm", "--sts", "{W}/sts.jsonl", "--backend", ""),
]

POOL = ("experiment", "pooling")
EXPERIMENT = [
    Case("python -m training experiment pooling", "no flags",
         cli("training", "experiment", "pooling")),
    Case("python -m training experiment pooling", "no experiment name",
         cli("training", "experiment")),
    Case("python -m training experiment pooling", "an unknown experiment",
         cli("training", "experiment", "layers")),
    _fit("--modes cls,sum", "--modes", "cls,sum", command=POOL),
    _fit("--modes '' (none)", "--modes", "", command=POOL),
    _fit("--modes ',,'", "--modes", ",,", command=POOL),
    _fit("--modes cls,cls", "--modes", "cls,cls", command=POOL),
    _fit("--modes CLS (upper case)", "--modes", "CLS", command=POOL),
    _fit("--pooling mean (fit's flag)", "--pooling", "mean", command=POOL),
    _fit("--model that does not exist", model="{W}/no-model", command=POOL),
    _fit("--train that does not exist", train="{W}/nope.jsonl", command=POOL),
    _fit("--train with other column names", train="{W}/qa.jsonl", command=POOL),
    _fit("--loss huber", loss="huber", command=POOL),
    _fit("--epochs inf", "--epochs", "inf", command=POOL),
    _fit("--lr -1", "--lr", "-1", command=POOL),
    _fit("--seed abc", "--seed", "abc", command=POOL),
    _fit("--max-length 100000", "--max-length", "100000", command=POOL),
    _fit("--dev whose gold scores are all equal", "--dev", "{W}/const.jsonl", command=POOL),
    _fit("--dev the --train file itself", "--dev", "{W}/sts.jsonl", command=POOL),
    _fit("--out an existing file", out="{W}/file.txt", command=POOL),
    _fit("--out below a file", out="{W}/file.txt/exp", command=POOL),
    _fit("--resume with nothing to resume", "--resume", command=POOL),
    _fit("--prompt qurey", "--prompt", "qurey", command=POOL),
]

def _adapt(bad: str, *flags: str, where: tuple[str, ...] = ("--index", "{W}/idx"),
           out: str | None = None, expect: str | int = "refused", note: str = "") -> Case:
    def run(ws) -> Outcome:
        target = out or str(ws.root / "runs" / uuid.uuid4().hex[:8])
        return cli("training", "adapt", *where, "--out", target, "--no-progress", *flags)(ws)

    return Case("python -m training adapt", bad, run, expect, note)


ADAPT = [
    Case("python -m training adapt", "no flags", cli("training", "adapt")),
    _adapt("--index that does not exist", where=("--index", "{W}/nope")),
    _adapt("--index a training run folder", where=("--index", "{W}/runs/finished")),
    _adapt("--index and --corpus together", where=("--index", "{W}/idx", "--corpus",
                                                   "{W}/corpus.jsonl")),
    _adapt("--corpus without titles or headings", "--model", "minilm",
           where=("--corpus", "{W}/corpus-notitle.jsonl")),
    _adapt("--corpus without --model", where=("--corpus", "{W}/corpus.jsonl")),
    _adapt("--pairs titles (typo)", "--pairs", "titles"),
    _adapt("--pairs '' (none)", "--pairs", ""),
    _adapt("--batch-size 1 (MNRL needs negatives)", "--batch-size", "1"),
    _adapt("--lr 0", "--lr", "0"),
    _adapt("--epochs inf", "--epochs", "inf"),
    _adapt("--max-pairs 0", "--max-pairs", "0"),
    _adapt("--model that does not exist", "--model", "{W}/no-model"),
    _adapt("--out an existing file", out="{W}/file.txt"),
    _adapt("--out a finished run", out="{W}/runs/finished"),
    _adapt("--out the index itself", out="{W}/idx"),
    _adapt("--out a folder holding something else", out="{W}/busy"),
    _adapt("--resume with nothing to resume", "--resume"),
    _adapt("--max-length 100000", "--max-length", "100000"),
    _adapt("--seed -1", "--seed", "-1"),
    _adapt("--epochs 0", "--epochs", "0"),
    _adapt("--corpus an empty file", "--model", "minilm", where=("--corpus", "{W}/empty.jsonl")),
    _adapt("--corpus whose every row is bad", "--model", "minilm",
           where=("--corpus", "{W}/bad.jsonl")),
]

COMMANDS = {"fit": FIT, "evaluate": EVALUATE, "experiment pooling": EXPERIMENT,
            "adapt": ADAPT}
