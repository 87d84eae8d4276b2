"""`sense_separation`: does a word's contextual vector sort its contexts by sense, layer by layer?

Raw cosines between contextual vectors sit high for any pair (anisotropy: every layer's vectors
share a common direction, Ethayarajh 2019), so two uses of 苹果 can look alike whatever they
mean. Here each layer's common direction is removed first (the mean over the contexts by
default), then each context is given the sense of its nearest other context (leave-one-out
1-NN, cosine) and the clusters are scored with a silhouette. Chance is what shuffled labels
give; a shuffle test on the best layer's accuracy (the best layer picked among all, in every
shuffle too) decides the verdict: "separates", "does not separate" or "too few contexts".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .sense_contexts import SEP, SenseContexts

if TYPE_CHECKING:
    from .protocol import EncoderLike

CENTRINGS = ("contexts", "none", "background", "whiten")
VERDICTS = ("separates", "does not separate", "too few contexts")
ALPHA = 0.05  # a shuffle test below this says "separates"
SHUFFLES = 2000


@dataclass
class SenseSeparation:
    labels: list[str]  # one sense per context
    centring: str  # how each layer's common direction was removed (CENTRINGS)
    accuracy: np.ndarray  # (layers,): share of contexts whose nearest other context has their sense
    silhouette: np.ndarray  # (layers,): -1..1, cosine distance, after centring
    within: np.ndarray  # (layers,): mean raw cosine of same-sense pairs (no centring)
    between: np.ndarray  # (layers,): mean raw cosine of different-sense pairs
    chance: float  # the accuracy shuffled labels give on average
    best_layer: int  # the layer of highest accuracy (then silhouette), the earliest on a tie
    p_value: float | None  # share of label shuffles as accurate at their best layer; None: too few
    shuffles: int
    misplaced: list[int]  # contexts whose nearest neighbour at best_layer has another sense

    @property
    def senses(self) -> dict[str, int]:
        """Sense → number of contexts, in the order the senses first appear."""
        return dict(Counter(self.labels))

    @property
    def layers(self) -> int:
        return len(self.accuracy)

    @property
    def verdict(self) -> str:
        if self.p_value is None:
            return "too few contexts"
        return "separates" if self.p_value < ALPHA else "does not separate"

    def summary(self, model: str = "This model") -> str:
        """The verdict as a sentence that says what was measured."""
        n, best = len(self.labels), self.best_layer
        acc, sil = self.accuracy[best], self.silhouette[best]
        counts = ", ".join(f"{c} {s}" for s, c in self.senses.items())
        if self.p_value is None:
            return (f"Too few contexts to tell ({counts}): even a perfect split would arise by "
                    f"chance too often. Give at least {contexts_needed(len(self.senses))} "
                    "contexts of each sense.")
        shuffled = (f"label shuffles do as well at some layer in {self.p_value:.1%} of "
                    f"{self.shuffles:,} tries")
        if self.verdict == "separates":
            return (f"{model} separates the senses: at layer {best}, {acc:.0%} of the {n} "
                    f"contexts ({counts}) have a nearest neighbour of their own sense, against "
                    f"{self.chance:.0%} by chance ({shuffled}); silhouette {sil:+.2f}.")
        return (f"{model} does not separate the senses here: at its best layer ({best}) "
                f"{acc:.0%} of the {n} contexts ({counts}) have a nearest neighbour of their own "
                f"sense, against {self.chance:.0%} by chance, and {shuffled}.")

    def misplaced_note(self, model: str = "This model") -> str | None:
        """Which contexts' nearest neighbour at the best layer has another sense, as a
        sentence; None when none has, or when there were too few contexts to tell."""
        if not self.misplaced or self.p_value is None:
            return None
        return (f"{model}, layer {self.best_layer}: the nearest neighbour of "
                + ", ".join(f"#{i + 1} ({self.labels[i]})" for i in self.misplaced)
                + " has another sense.")


def chance_accuracy(labels: Sequence[str]) -> float:
    """Expected leave-one-out 1-NN accuracy with the labels shuffled: a context's neighbour is
    any of the other n - 1, of which n_k - 1 share its sense."""
    n = len(labels)
    return sum(c * (c - 1) for c in Counter(labels).values()) / (n * (n - 1))


def labellings(labels: Sequence[str]) -> int:
    """How many distinct ways the labels can be spread over the contexts (n! / prod n_k!)."""
    total = math.factorial(len(labels))
    for c in Counter(labels).values():
        total //= math.factorial(c)
    return total


def contexts_needed(senses: int, alpha: float = ALPHA) -> int:
    """The fewest contexts per sense (the same number each) at which a shuffle test can reach
    `alpha` at all."""
    k = 1
    while labellings([s for s in range(senses) for _ in range(k)]) * alpha <= 1:
        k += 1
    return k


def centred(vectors: np.ndarray, centring: str = "contexts",
            background: np.ndarray | None = None, shrink: float = 0.1) -> np.ndarray:
    """vectors (C, layers, H) with each layer's common direction removed.

    `contexts`: minus the mean of these vectors; `background`: minus the mean of `background`
    (layers, T, H), e.g. every token of the contexts; `whiten`: minus that mean, then whitened
    by the background's covariance (shrunk by `shrink` toward its mean variance); `none`: as is.
    """
    if centring not in CENTRINGS:
        raise ValueError(f"Invalid centring {centring!r}. Valid: {', '.join(CENTRINGS)}")
    x = np.asarray(vectors, dtype=np.float64)
    if centring == "none":
        return x
    if centring == "contexts":
        return x - x.mean(axis=0, keepdims=True)
    if background is None or background.ndim != 3 or background.shape[0] != x.shape[1]:
        raise ValueError(f"centring {centring!r} needs background tokens (layers, T, H)")
    mean = background.mean(axis=1)  # (layers, H)
    x = x - mean[None]
    if centring == "background":
        return x
    out = np.empty_like(x)
    h = x.shape[-1]
    for layer in range(x.shape[1]):
        b = background[layer] - mean[layer]
        cov = b.T @ b / len(b)
        cov = (1 - shrink) * cov + shrink * np.trace(cov) / h * np.eye(h)
        values, basis = np.linalg.eigh(cov)
        out[:, layer] = x[:, layer] @ basis / np.sqrt(np.maximum(values, 1e-12))
    return out


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def sense_separation(
    vectors: np.ndarray, labels: Sequence[str], *, centring: str = "contexts",
    background: np.ndarray | None = None, shuffles: int = SHUFFLES, seed: int = 0,
) -> SenseSeparation:
    """vectors (C, layers, H) of one word in C contexts, labels (C,) their senses → per-layer
    nearest-neighbour accuracy and silhouette, chance, and the shuffle test's verdict."""
    from sklearn.metrics import silhouette_score

    vectors = np.asarray(vectors)
    labels = [str(x) for x in labels]
    if vectors.ndim != 3 or len(vectors) != len(labels):
        raise ValueError(f"expected (contexts, layers, hidden) vectors for {len(labels)} "
                         f"labels, got shape {vectors.shape}")
    if len(set(labels)) < 2:
        raise ValueError("give contexts of at least two senses to measure their separation")
    c = len(labels)
    codes = np.unique(labels, return_inverse=True)[1]  # (C,) ints
    unit = _unit(centred(vectors, centring, background)).transpose(1, 0, 2)  # (L, C, H)
    sims = unit @ unit.transpose(0, 2, 1)  # (L, C, C)
    sims[:, np.arange(c), np.arange(c)] = -np.inf
    nearest = sims.argmax(axis=2)  # (L, C): does not depend on the labels
    hits = codes[nearest] == codes[None]  # (L, C)
    accuracy = hits.mean(axis=1)
    distance = np.clip(1 - unit @ unit.transpose(0, 2, 1), 0, 2)
    distance[:, np.arange(c), np.arange(c)] = 0
    if len(set(labels)) < c:  # a silhouette needs a sense with two contexts
        silhouette = np.array([silhouette_score(d, codes, metric="precomputed")
                               for d in distance])
    else:
        silhouette = np.full(len(accuracy), np.nan)
    best = int(np.lexsort((-silhouette, -accuracy))[0])

    raw = _unit(np.asarray(vectors, dtype=np.float64)).transpose(1, 0, 2)
    cos = raw @ raw.transpose(0, 2, 1)
    same = (codes[:, None] == codes[None]) & ~np.eye(c, dtype=bool)
    between = cos[:, codes[:, None] != codes[None]].mean(axis=1)
    within = cos[:, same].mean(axis=1) if same.any() else np.full(len(cos), np.nan)

    p_value = None
    if labellings(labels) * ALPHA > 1:
        rng = np.random.default_rng(seed)
        top = accuracy.max() - 1e-12
        as_good = sum(
            (perm[nearest] == perm[None]).mean(axis=1).max() >= top
            for perm in (rng.permutation(codes) for _ in range(shuffles)))
        p_value = (1 + as_good) / (1 + shuffles)
    return SenseSeparation(
        labels=labels, centring=centring, accuracy=accuracy, silhouette=silhouette,
        within=within, between=between, chance=chance_accuracy(labels), best_layer=best,
        p_value=p_value, shuffles=shuffles, misplaced=[int(i) for i in np.flatnonzero(~hits[best])],
    )


def split_labelled(lines: Sequence[str]) -> tuple[list[str], list[str] | None]:
    """Lines written "sense | context" → (contexts, senses); lines with no label → (lines, None).

    Label every line or none: a mix is refused, naming the first line without one."""
    parts = [line.split(SEP, 1) if SEP in line else None for line in lines]
    if all(p is None for p in parts):
        return list(lines), None
    for i, p in enumerate(parts):
        if p is None or not p[0].strip() or not p[1].strip():
            raise ValueError(f"label every context as 'sense{SEP}text', or none: context #{i + 1} "
                             f"({lines[i][:60]!r}) has no sense or no text")
    return [p[1].strip() for p in parts], [p[0].strip() for p in parts]


def measure_senses(encoder: EncoderLike, contexts: SenseContexts | Sequence[tuple[str, str]],
                   word: str | None = None, *, pooling: str = "mean",
                   centring: str = "contexts") -> SenseSeparation:
    """The word's per-layer vectors in labelled contexts ((sense, text) pairs, or a
    `SenseContexts`) → their `SenseSeparation`."""
    from .trajectory import word_trajectory

    if isinstance(contexts, SenseContexts):
        word = word or contexts.word
        contexts = contexts.contexts
    if not word:
        raise ValueError("name the word whose senses to measure")
    labels, texts = zip(*contexts, strict=True) if contexts else ((), ())
    traj = word_trajectory(encoder, list(texts), word, pooling=pooling)
    return sense_separation(traj.vectors, labels, centring=centring)
