"""Bounds on the work of one integrated-Jacobians explanation, checked before any of it starts.

The work is steps x content tokens Jacobian-vector products (each a forward pass over the whole
text, so time grows as steps x tokens²), and the Gauss-Legendre rule solves a steps x steps
eigenproblem: steps=5000 ran for minutes, steps=10**6 asked for 7 TiB. Past the bounds an
explanation is refused at once with `ExplainError`, naming the bound and the most steps the
texts take. The bounds admit what the product offers: the default 16 steps on two texts of
512 tokens, and the Search page's 64 steps on a query and a full chunk.
"""

from __future__ import annotations

from .side import ExplainError, Side

MAX_STEPS = 256  # Gauss-Legendre with 16 points is within ~1 % on sentences, 32-64 on chunks
MAX_TOKEN_STEPS = 32_768  # steps x content tokens of both texts (Jacobian-vector products)


def check_work(method: str, steps: int, sa: Side, sb: Side) -> None:
    """Refuse an integrated-Jacobians explanation of `sa` and `sb` over the bounds (occlusion
    takes no steps: nothing to bound)."""
    if method == "occlusion":
        return
    if steps > MAX_STEPS:
        raise ExplainError(f"steps={steps}: an explanation takes at most {MAX_STEPS} steps (the "
                           "default 16 keeps sentences within ~1 %, 32-64 suit chunks); pass "
                           f"steps <= {MAX_STEPS}")
    na, nb = int(sa.content.sum()), int(sb.content.sum())
    if steps * (na + nb) > MAX_TOKEN_STEPS:
        raise ExplainError(
            f"{steps} steps x {na + nb} tokens (a: {na}, b: {nb}) = {steps * (na + nb):,} "
            f"Jacobian-vector products, more than the bound of {MAX_TOKEN_STEPS:,} (time grows "
            f"with steps x tokens²): pass steps <= {MAX_TOKEN_STEPS // (na + nb)} for these "
            "texts, or explain shorter ones")
