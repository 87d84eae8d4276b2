"""`compare_senses`: one word followed through one or more models in the same contexts, each
model's `sense_separation` measured where the contexts carry senses, and the layer a 2-D map of
the first model opens on (the layer that separates the senses best; without senses, the last).

It takes trajectories already made (`word_trajectory`, cached by whoever calls it), so it loads
nothing and runs on plain arrays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .senses import SenseSeparation, sense_separation
from .trajectory import WordTrajectory


@dataclass(frozen=True)
class SenseComparison:
    """`trajectories`: model -> its `WordTrajectory`, the first model's first; `senses`: one
    label per context, or None (unlabelled contexts: nothing to measure); `measured`: model ->
    its `SenseSeparation`, in the same order (empty without senses)."""

    trajectories: dict[str, WordTrajectory]
    senses: list[str] | None
    measured: dict[str, SenseSeparation]

    @property
    def first(self) -> WordTrajectory:
        """The first model's trajectory (the one the map and the look-ups use)."""
        return next(iter(self.trajectories.values()))

    @property
    def map_layer(self) -> int:
        """The layer a 2-D map opens on: the first model's best layer for the senses (its
        verdict's), else its last layer."""
        if self.measured:
            return next(iter(self.measured.values())).best_layer
        return self.first.layers - 1


def compare_senses(trajectories: Mapping[str, WordTrajectory],
                   senses: Sequence[str] | None = None) -> SenseComparison:
    """Each model's separation of `senses` (one label per context, as `split_labelled` gives
    them; None: not measured) from its trajectory of the same word in the same contexts."""
    if not trajectories:
        raise ValueError("give at least one model's trajectory of the word to compare")
    contexts = {tuple(t.contexts) for t in trajectories.values()}
    if len(contexts) > 1:
        raise ValueError("the trajectories follow different contexts: run every model on the "
                         "same contexts to compare them")
    labels = None if senses is None else [str(s) for s in senses]
    measured = {} if labels is None else {
        model: sense_separation(t.vectors, labels) for model, t in trajectories.items()}
    return SenseComparison(dict(trajectories), labels, measured)
