"""`Explanation`: why two texts got their cosine, as token- and word-level attribution data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..words import WordGroup

SHOWN_GAP = 5e-5  # below this the two cosines print alike at four decimals


@dataclass(frozen=True)
class Explanation:
    method: str  # "integrated-jacobians" or "occlusion"
    text_a: str
    text_b: str
    tokens_a: list[str]  # as the model reads them ([CLS], prompt prefix and [SEP] included)
    tokens_b: list[str]
    words_a: list[WordGroup]  # content words only; `start`/`end` index text_a / text_b
    words_b: list[WordGroup]
    token_matrix: np.ndarray | None  # (Ta, Tb); None for occlusion, which works on words
    word_matrix: np.ndarray  # (Wa, Wb)
    word_scores_a: np.ndarray  # (Wa,) each word of a's share of the similarity
    word_scores_b: np.ndarray  # (Wb,)
    score: float  # cosine of the two texts' embeddings on the torch fp32 model (what is explained)
    target: float  # what the attributions promise to sum to (nan where nothing is promised)
    error: float  # completeness error: word_matrix.sum() - target (nan for occlusion)
    steps: int  # integration points (0 for occlusion)
    backend: str = "torch"  # what the encoder's `encode` (and so an index's hits) runs on
    backend_score: float = float("nan")  # the cosine `encode` gives there (= score on torch)
    seconds: float = float("nan")  # what computing it took (the torch model's load not counted)

    @property
    def units(self) -> int:
        """Token passes an occlusion of these texts makes (`estimate.occlusion_units`): with
        `seconds`, the pace this machine explains at now."""
        from .estimate import occlusion_units

        return occlusion_units(len(self.tokens_a), len(self.words_a), len(self.tokens_b),
                               len(self.words_b))

    @property
    def score_gap(self) -> float:
        """backend_score - score: how far the encoding backend's cosine (an int8 or ONNX
        export's) lies from the torch cosine that the attributions explain."""
        return self.backend_score - self.score

    @property
    def word_strings_a(self) -> list[str]:
        return [g.word for g in self.words_a]

    @property
    def word_strings_b(self) -> list[str]:
        return [g.word for g in self.words_b]

    def score_note(self) -> str:
        """One sentence on the two cosines where the backend is not torch and they differ at the
        four decimals shown, else "" (fused fp32 ONNX printed "-0.0000 apart": nothing to say)."""
        if self.backend == "torch" or abs(self.score_gap) < SHOWN_GAP:
            return ""
        return (f"The {self.backend} backend that encodes for search gives cosine "
                f"{self.backend_score:.4f}; the explanation attributes the torch fp32 model's "
                f"{self.score:.4f} (gradients need the float model), {self.score_gap:+.4f} apart.")

    def strongest_b(self, n: int) -> list[int]:
        """Positions of the `n` words of b with the largest shares (either sign), in text
        order: what a heatmap can label readably when b is a long chunk."""
        order = np.argsort(-np.abs(np.asarray(self.word_scores_b)), kind="stable")[:n]
        return sorted(int(i) for i in order)

    @property
    def relative_error(self) -> float:
        """|error| / |target|: the share of the promised sum the attributions miss."""
        return abs(self.error) / max(abs(self.target), 1e-12)


def sum_words(matrix: np.ndarray, groups_a: Sequence[WordGroup],
              groups_b: Sequence[WordGroup]) -> np.ndarray:
    """Token×token attributions (Ta, Tb) → word×word (Wa, Wb): sums, as attributions add up
    (unlike attention, where `merge_subwords` averages the rows)."""
    rows = np.stack([matrix[g.tokens].sum(0) for g in groups_a])  # (Wa, Tb)
    return np.stack([rows[:, g.tokens].sum(1) for g in groups_b], axis=1)  # (Wa, Wb)
