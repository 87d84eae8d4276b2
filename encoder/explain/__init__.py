"""Why two texts match: attributions of a Siamese encoder's cosine to token and word pairs.

`explain(encoder, a, b, method="integrated-jacobians" | "occlusion", steps=16)` → `Explanation`.
Always runs on the torch model (gradients); `ExplainError` names what to change otherwise.
"""

from .api import DEFAULT_STEPS, METHODS, explain, occlusion_work, work_units
from .explanation import Explanation, sum_words
from .side import ExplainError

__all__ = ["DEFAULT_STEPS", "METHODS", "ExplainError", "Explanation", "explain", "sum_words",
           "occlusion_work", "work_units"]
