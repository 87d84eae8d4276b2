"""Integrated Jacobians (Moeller et al., EMNLP 2023, "An Attribution Method for Siamese
Encoders"): integrated gradients extended to a pair of inputs.

With f the unit sentence embedding, a and b the two texts' word embeddings and r_a, r_b their
references ([PAD] for every content token; [CLS], [SEP] and the prompt prefix kept),

    f(a) - f(r_a) = sum_i J̄_i (a_i - r_i),  J̄_i = ∫_0^1 ∂f/∂a_i (r_a + α (a - r_a)) dα,

so for the cosine s = f(a)·f(b)

    s(a,b) - s(a,r_b) - s(r_a,b) + s(r_a,r_b) = sum_ij A_ij,  A_ij = u_i · v_j,

with u_i = J̄_i (a_i - r_i) each token's share of the embedding's move away from the reference.
Only the integral is approximated, by Gauss-Legendre quadrature over `steps` points (exact for
polynomials of degree 2·steps - 1; xsbert sums 250+ equal steps), so the sum misses its target
by the integration error alone (and float32 round-off). Each u_i is a Jacobian-vector
product, computed with torch's forward-mode autograd (`torch.func.jvp`) batched over
(step, token) pairs: cost grows as steps × tokens² per text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch.func import jvp

from .forward import EmbedFn

TOKENS_PER_BATCH = 8192  # sequence positions per forward pass: bounds memory on long texts


@dataclass(frozen=True)
class Shares:
    """One text's attribution vectors and embeddings."""

    u: torch.Tensor  # (T, D): token i's share of f(x) - f(r); zero rows for fixed tokens
    embedding: torch.Tensor  # (D,) f(x)
    reference: torch.Tensor  # (D,) f(r)


def token_shares(f: EmbedFn, x: torch.Tensor, r: torch.Tensor, content: torch.Tensor,
                 steps: int, progress: Callable[[int], None] | None = None) -> Shares:
    """u_i = ∫ ∂f/∂x_i (r + α (x - r)) (x_i - r_i) dα for every content token i.

    x, r: (1, T, H) word embeddings of the text and its reference; content: (T,) bool.
    `progress(n)` is told after each batch how many (step, token) products it held; an
    exception it raises stops the work there (how a caller cancels).
    """
    _, T, H = x.shape
    delta = (x - r)[0]  # (T, H)
    tokens = torch.nonzero(content).flatten().tolist()
    alphas, weights = quadrature(steps)
    pairs = [(a, i) for a in range(steps) for i in tokens]
    per_batch = max(1, TOKENS_PER_BATCH // T)
    with torch.no_grad():
        ends = f(torch.cat([x, r]))  # (2, D)
        u = torch.zeros(T, ends.shape[1], dtype=x.dtype)
        for start in range(0, len(pairs), per_batch):
            chunk = pairs[start:start + per_batch]
            a_idx = torch.tensor([a for a, _ in chunk])
            t_idx = torch.tensor([i for _, i in chunk])
            primal = r + alphas[a_idx, None, None] * (x - r)  # (B, T, H) points on the path
            tangent = torch.zeros(len(chunk), T, H, dtype=x.dtype)
            tangent[torch.arange(len(chunk)), t_idx] = delta[t_idx]  # move token i only
            _, du = jvp(f, (primal,), (tangent,))  # (B, D) = J(primal)[:, i] (x_i - r_i)
            u.index_add_(0, t_idx, weights[a_idx, None] * du)
            if progress is not None:
                progress(len(chunk))
    return Shares(u, ends[0], ends[1])


def quadrature(steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Gauss-Legendre nodes and weights on [0, 1]; the weights sum to 1."""
    nodes, weights = np.polynomial.legendre.leggauss(steps)
    return (torch.tensor((nodes + 1) / 2, dtype=torch.float32),
            torch.tensor(weights / 2, dtype=torch.float32))


def pair_matrix(sa: Shares, sb: Shares) -> tuple[torch.Tensor, float, float]:
    """(A (Ta, Tb), the target sum(A) promises, the completeness error sum(A) - target)."""
    A = sa.u @ sb.u.T  # (Ta, Tb)
    target = float((sa.embedding - sa.reference) @ (sb.embedding - sb.reference))
    return A, target, float(A.sum()) - target
