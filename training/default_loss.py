"""The loss `fit` uses when none is given: one per data kind, chosen for what the kind holds.

- `scored` pairs (STS-B 0-5) -> `cosent`: it ranks pairs by their gold score through the cosines,
  so it needs no shift of the cosine level (measured here: the regression loss `cosine` drags
  every cosine toward score/5 first, which scrambles the order of a model whose cosines sit in a
  narrow band, as e5's do);
- `binary` pairs (LCQMC, ATEC) -> `cosent` as well: 0/1 labels are an order too, and it uses the
  negatives (`mnrl` would drop them; `contrastive` needs a margin tuned per model);
- `nli` pairs -> `mnrl` on (premise, entailment, contradiction) triplets, the SBERT/SimCSE
  setting that beats the 3-way softmax;
- `triplet` rows (query, positive, hard negative) -> `mnrl`.
"""

from __future__ import annotations

from .errors import TrainingError

DEFAULT_LOSS: dict[str, str] = {
    "scored": "cosent",
    "binary": "cosent",
    "nli": "mnrl",
    "triplet": "mnrl",
}


def default_loss(kinds: set[str] | list[str] | tuple[str, ...], files: tuple[str, ...] = ()) -> str:
    """The default loss for files of `kinds`; one loss must fit them all."""
    kinds = sorted(set(kinds))
    unknown = [k for k in kinds if k not in DEFAULT_LOSS]
    if unknown:
        raise TrainingError(f"no default loss for data kind {unknown[0]!r}; pass --loss")
    losses = {DEFAULT_LOSS[k] for k in kinds}
    if len(losses) > 1:
        raise TrainingError(
            f"{', '.join(files) or 'these files'}: {' and '.join(kinds)} data in one stage have "
            "different default losses; pass --loss, or put them in separate stages or tasks"
        )
    return losses.pop()
