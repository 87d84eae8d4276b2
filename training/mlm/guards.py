"""Runs of `training mlm` that could not tell anything, refused before they train:
- held-out texts that are the corpus itself (`--eval` the same file, or a copy);
- nothing to hold out: one document and no `--eval` (a .txt without blank lines is one
  document; `--max-docs 1` keeps one) leaves no held-out text to score before and after;
- a run that masks nothing: every token special ([MASK], [CLS], [UNK]... are never masked), or
  a `--mlm-probability` so small that a batch masks less than one token on average (such steps
  learn nothing and report a loss of 0).
Each refusal names the bound and the fix, as a `TrainingError`."""

from __future__ import annotations

from collections.abc import Sequence

from ..checks import SCORED_APART, scored_on_training_data
from ..errors import TrainingError
from .config import MlmConfig
from .texts import Documents

MIN_MASKED_PER_BATCH = 1.0  # expected masked tokens (or words) in one training batch


def check_eval_apart(config: MlmConfig) -> None:
    """`--eval` is not one of the `--corpus` files (same path, or the same bytes)."""
    if not config.eval_corpus:
        return
    hit = scored_on_training_data([(f"--eval {config.eval_corpus}", config.eval_corpus)],
                                  [(f"--corpus {c}", c) for c in config.corpus])
    if hit:
        raise TrainingError(f"{hit[0]} {hit[1]} {hit[2]}: {SCORED_APART}")


def check_something_held_out(config: MlmConfig, sources: Sequence[Documents],
                             held: Documents | None) -> None:
    """Without `--eval`, at least two documents: one to hold out, one to train on."""
    if held is not None:
        return
    total = sum(len(d.texts) for d in sources)
    kept = min(total, config.max_docs) if config.max_docs is not None else total
    if kept >= 2:
        return
    why = (f"--max-docs {config.max_docs} keeps 1 document" if kept < total else
           f"{', '.join(d.path for d in sources)} holds 1 document")
    raise TrainingError(
        f"{why}, so none is left to hold out for the before/after scores: give more documents "
        "(in a .txt, a blank line separates documents), or pass --eval FILE with held-out texts")


def maskable(example: dict, special_ids: set[int], whole_word: bool) -> int:
    """Tokens (or whole words) of one example that masking may select."""
    if whole_word and "word_ids" in example:
        return len({w for w in example["word_ids"] if w >= 0})
    return sum(1 for i in example["input_ids"] if i not in special_ids)


def masked_per_batch(examples: Sequence[dict], tokenizer, probability: float, *, batch_size: int,
                     whole_word: bool) -> float:
    """Expected number of masked tokens (words) in one batch of `examples`."""
    if not examples:
        return 0.0
    special = set(tokenizer.all_special_ids)
    total = sum(maskable(e, special, whole_word) for e in examples)
    return probability * total / len(examples) * min(batch_size, len(examples))


def check_masking(tokenizer, train: Sequence[dict], held: Sequence[dict],
                  config: MlmConfig) -> None:
    """The training and the held-out examples have tokens to mask, and a batch masks at least
    `MIN_MASKED_PER_BATCH` on average."""
    unit = "words" if config.whole_word else "tokens"
    special = set(tokenizer.all_special_ids)
    never = ("special tokens such as [MASK], [CLS], [SEP] and [UNK] are never masked, and "
             "they are all these texts hold: give real text")
    for role, examples in (("training", train), ("held-out", held)):
        if not any(maskable(e, special, config.whole_word) for e in examples):
            raise TrainingError(f"the {role} text has no token that can be masked: {never}")
    per_batch = masked_per_batch(train, tokenizer, config.mlm_probability,
                                 batch_size=config.batch_size, whole_word=config.whole_word)
    if per_batch < MIN_MASKED_PER_BATCH:
        needed = config.mlm_probability * MIN_MASKED_PER_BATCH / per_batch
        fix = (f"--mlm-probability >= {needed:.2g} (BERT: 0.15), a larger --batch-size"
               if needed < 1 else "a larger --batch-size")
        raise TrainingError(
            f"--mlm-probability {config.mlm_probability:g} masks about {per_batch:.2g} {unit} "
            f"in a batch of {min(config.batch_size, len(train))} sequences, fewer than "
            f"{MIN_MASKED_PER_BATCH:g}: most steps would learn nothing (loss 0). Use {fix} "
            "or longer texts")
