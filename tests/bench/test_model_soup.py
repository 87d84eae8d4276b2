"""bench/model_soup.py: a soup holds the weighted mean of its runs' weights."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from sentence_transformers import SentenceTransformer

from bench.model_soup import parse_run, soup


@pytest.fixture(scope="module")
def shifted_dir(tiny_model_dir, tmp_path_factory) -> Path:
    """The tiny model with every float weight moved by +1."""
    model = SentenceTransformer(str(tiny_model_dir), device="cpu")
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)
    out = tmp_path_factory.mktemp("shifted") / "model"
    model.save(str(out))
    return out


@pytest.mark.parametrize("weights", [(1.0, 1.0), (3.0, 1.0), (1.0, 0.0)])
def test_soup_is_the_weighted_mean(tiny_model_dir, shifted_dir, weights):
    a = SentenceTransformer(str(tiny_model_dir), device="cpu").state_dict()
    mixed = soup([(str(tiny_model_dir), weights[0]), (str(shifted_dir), weights[1])]).state_dict()
    share = weights[1] / sum(weights)  # of the +1 shift
    for name, value in a.items():
        if value.is_floating_point():
            assert torch.allclose(mixed[name], value + share, atol=1e-5), name
        else:
            assert torch.equal(mixed[name], value), name


def test_one_run_is_itself(tiny_model_dir):
    a = SentenceTransformer(str(tiny_model_dir), device="cpu").state_dict()
    alone = soup([(str(tiny_model_dir), 1.0)]).state_dict()
    assert all(torch.equal(alone[k], v) for k, v in a.items())


def test_run_arguments():
    assert parse_run("runs/a") == ("runs/a", 1.0)
    assert parse_run("runs/a:0.25") == ("runs/a", 0.25)


def test_task_arithmetic_adds_a_change(tiny_model_dir, shifted_dir):
    """A:1 B:1 A:-1 is B: a negative weight subtracts."""
    b = SentenceTransformer(str(shifted_dir), device="cpu").state_dict()
    mixed = soup([(str(tiny_model_dir), 1.0), (str(shifted_dir), 1.0),
                  (str(tiny_model_dir), -1.0)]).state_dict()
    assert all(torch.allclose(mixed[k], v, atol=1e-5) for k, v in b.items()
               if v.is_floating_point())


def test_weights_summing_to_zero_are_refused(tiny_model_dir, shifted_dir):
    with pytest.raises(SystemExit, match="sum to 0"):
        soup([(str(tiny_model_dir), 1.0), (str(shifted_dir), -1.0)])
