"""What each kind of training file holds, for a person about to write one: its fields in words
and a few example rows (the upload form shows them and offers them as a file to download)."""

from __future__ import annotations

import json

from .default_loss import DEFAULT_LOSS

FIELDS = {
    "scored": "sentence1, sentence2, score (a similarity from 0 to 5, or 0 to 1)",
    "binary": "sentence1, sentence2, score (1: same meaning, 0: not)",
    "nli": "premise, hypothesis, label (entailment, neutral or contradiction)",
    "triplet": "anchor, positive, and optionally negative (a hard negative)",
}
EXAMPLES: dict[str, list[dict]] = {
    "scored": [
        {"sentence1": "A man is playing a guitar.", "sentence2": "A man plays guitar.",
         "score": 4.8},
        {"sentence1": "A woman slices an onion.", "sentence2": "Someone is cooking.",
         "score": 2.6},
        {"sentence1": "A dog runs in the park.", "sentence2": "The stock market fell.",
         "score": 0.0},
    ],
    "binary": [
        {"sentence1": "How do I reset my password?", "sentence2": "I forgot my password, what "
         "now?", "score": 1},
        {"sentence1": "How do I reset my password?", "sentence2": "How do I close my account?",
         "score": 0},
    ],
    "nli": [
        {"premise": "A man plays guitar on stage.", "hypothesis": "Someone makes music.",
         "label": "entailment"},
        {"premise": "A man plays guitar on stage.", "hypothesis": "The man is asleep.",
         "label": "contradiction"},
        {"premise": "A man plays guitar on stage.", "hypothesis": "He is famous.",
         "label": "neutral"},
    ],
    "triplet": [
        {"anchor": "what lowers blood pressure", "positive": "Regular exercise and less salt "
         "lower blood pressure in most adults.", "negative": "Blood pressure is measured in "
         "millimetres of mercury."},
        {"anchor": "when did the first iPhone come out", "positive": "Apple released the first "
         "iPhone in June 2007."},
    ],
}


def example_jsonl(kind: str) -> bytes:
    """A small file of `kind` in the form the trainer reads (JSON lines)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in EXAMPLES[kind]).encode()


def kinds_table() -> list[dict[str, str]]:
    """One row per kind: its fields, an example row and the loss it trains with by default."""
    return [{"kind": k, "fields": FIELDS[k], "loss by default": DEFAULT_LOSS[k],
             "example row": json.dumps(EXAMPLES[k][0], ensure_ascii=False)} for k in FIELDS]
