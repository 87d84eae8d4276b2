"""`eval_mode`: a torch module in eval mode (dropout off) for a block, then every submodule back in
the mode it was in.

Restoring with `module.train(was_training)` is not enough: `train()` sets every submodule to the
top module's mode, and modules are often mixed. A freshly loaded SentenceTransformer is in
training mode at the top (its Pooling, Normalize) while its transformer is in eval; a wrapper made
for one job (a pretrainer around an encoder's BertModel) starts in training mode. Restoring the
top's mode onto the shared model turned its dropout on (attention rows summing to 1/0.9).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch


@contextmanager
def eval_mode(module: torch.nn.Module) -> Iterator[torch.nn.Module]:
    modes = [(m, m.training) for m in module.modules()]
    module.eval()
    try:
        yield module
    finally:
        for m, training in modes:
            m.training = training
