"""Weight averages ("model soups") of fine-tuned runs of one base model, scored on a recipe's
dev (`select`) and report sets, as `fit` scores its runs.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.model_soup --recipe recipes/zh-sts.json \
        RUNS/zh-sts RUNS/zh-sts-more:0.5      # each RUN[:WEIGHT]; weights are normalised

A run alone is scored as it is (a check against its metrics.json). Every floating-point
tensor is the weighted mean of the runs' tensors; the first run gives the rest (tokenizer,
pooling, prompts). Negative weights make task arithmetic: `A:1 B:1 BASE:-1` adds B's change
from BASE to A. Prints one JSON line; nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile

from bench.kit.benchkit import data_dir


def parse_run(text: str) -> tuple[str, float]:
    path, _, weight = text.partition(":")
    return path, float(weight) if weight else 1.0


def soup(runs: list[tuple[str, float]]):
    """The first run's SentenceTransformer holding the weighted mean of all runs' weights."""
    from sentence_transformers import SentenceTransformer

    total = sum(w for _, w in runs)
    if abs(total) < 1e-9:
        raise SystemExit("the weights sum to 0: nothing to normalise by")
    model = SentenceTransformer(runs[0][0], device="cpu")
    if len(runs) > 1:
        first = model.state_dict()
        states = [(first, runs[0][1] / total)] + [
            (SentenceTransformer(p, device="cpu").state_dict(), w / total) for p, w in runs[1:]]
        model.load_state_dict({
            k: sum(w * s[k].float() for s, w in states).to(v.dtype) if v.is_floating_point()
            else v for k, v in first.items()})
    return model


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--recipe", required=True, help="recipe whose dev and report sets score")
    p.add_argument("runs", nargs="+", type=parse_run, metavar="RUN[:WEIGHT]")
    args = p.parse_args()

    from training.dev_sets import load_sets, score_sets
    from training.recipe import load_recipe

    with tempfile.TemporaryDirectory() as out:
        recipe = load_recipe(args.recipe, out=out, data=data_dir())
        recipe.write_splits()  # the held-out parts it scores on (loading writes nothing)
        config = recipe.config
    model = soup(args.runs)
    if config.max_seq_length:
        model.max_seq_length = config.max_seq_length
    result = {"runs": [f"{p}:{w}" for p, w in args.runs]}
    for role, files in (("dev", config.dev or ()), ("report", config.report)):
        scores = score_sets(model, load_sets(files, role=role), prompt=config.prompt)
        if scores:
            result[role] = {"mean": scores["spearman"],
                            "sets": {s["path"]: s["spearman"] for s in scores["sets"]}}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
