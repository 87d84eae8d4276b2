"""The exports' runtimes take the thread limit set for torch (a CLI's `--threads`, a Ray actor's
one CPU), else `$OMP_NUM_THREADS`, else their own default."""

from __future__ import annotations

import sys

import pytest
import torch

from encoder import runtime


@pytest.fixture
def torch_threads():
    before = torch.get_num_threads()
    yield torch.set_num_threads
    torch.set_num_threads(before)


def test_torchs_thread_count_is_the_default(torch_threads, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "5")
    torch_threads(1)
    assert runtime.default_threads() == 1
    torch_threads(2)
    assert runtime.default_threads() == 2


@pytest.mark.parametrize(("env", "expected"), [("3", 3), ("", None), ("0", None), ("x", None)])
def test_without_torch_loaded_omp_num_threads_decides(monkeypatch, env, expected):
    monkeypatch.delitem(sys.modules, "torch")
    monkeypatch.setenv("OMP_NUM_THREADS", env)
    assert runtime.default_threads() == expected


@pytest.mark.parametrize("kind", ["onnx", "openvino"])
def test_a_runner_made_without_threads_gets_the_default(torch_threads, monkeypatch, tmp_path,
                                                        kind):
    made = []
    monkeypatch.setattr(runtime, f"{kind}_runner", lambda graph, threads: made.append(threads))
    torch_threads(1)
    runtime.runner(kind, tmp_path / "model", None)
    runtime.runner(kind, tmp_path / "model", 4)  # an explicit count wins
    assert made == [1, 4]
