"""Ray settings are never ignored: `workers` / `ray_address` without the Ray engine are refused,
and more workers than there are CPUs run as many as there are CPUs, said and recorded."""

from __future__ import annotations

import json
import logging

import pytest

from indexer import build_index
from indexer.ray import cluster


@pytest.mark.parametrize("flags", [["--workers", "3"], ["--ray-address", "127.0.0.1:6379"],
                                   ["--engine", "local", "--workers", "1"]])
def test_cli_ray_flags_without_the_ray_engine_are_refused(tmp_path, run_cli, flags):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "a", "text": "cats purr"}) + "\n")
    done = run_cli("indexer", "build", "--corpus", corpus, "--out", tmp_path / "idx", *flags)
    assert done.code == 2 and flags[-2] in done.error and "--engine ray" in done.error
    assert not (tmp_path / "idx").exists()


def test_cli_build_without_ray_flags_still_builds(tmp_path, tiny_model_dir, run_cli):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "a", "text": "cats purr"}) + "\n")
    done = run_cli("indexer", "build", "--corpus", corpus, "--out", tmp_path / "idx", "--model",
                   tiny_model_dir, "--index", "flat")
    assert done.code == 0, done.err
    assert json.loads((tmp_path / "idx" / "manifest.json").read_text())["build"]["workers"] == 1


@pytest.mark.parametrize("settings,said", [
    (dict(workers=3), "workers=3 applies only to engine='ray'"),
    (dict(ray_address="auto"), "ray_address='auto' applies only to engine='ray'"),
    (dict(engine="ray", workers=0), "workers must be a positive integer, got 0"),
    (dict(engine="ray", workers="4"), "workers must be a positive integer, got '4'"),
])
def test_library_ray_settings_are_checked(tmp_path, tiny_encoder, settings, said):
    with pytest.raises(ValueError, match=said.replace("(", r"\(").replace(")", r"\)")):
        build_index([{"id": "a", "text": "cats"}], tmp_path / "idx", model=tiny_encoder,
                    **settings)


def test_more_workers_than_cpus_run_as_many_as_cpus(caplog):
    """(A real Ray build told workers=1000: test_raybuild.py's first test.)"""
    with caplog.at_level(logging.WARNING):
        assert cluster.bounded_workers(1000, 2, "this machine") == 2
    assert "workers=1000, but this machine has 2 CPUs: running 2 Ray workers" in caplog.text
    assert cluster.bounded_workers(2, 2, "this machine") == 2
