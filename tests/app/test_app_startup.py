"""The app's first heavy import sets OpenMP's wait policy for serving (passive), never over the
user's own value."""

from __future__ import annotations

import os
import sys

import pytest
from appkit import startup


@pytest.fixture
def light(monkeypatch):
    """Make `load_libraries` import one small module nobody has imported yet."""
    monkeypatch.setattr(startup, "HEAVY", ("colorsys",))
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)


def test_first_load_makes_openmp_waits_passive(light, monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    startup.load_libraries()
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    assert "colorsys" in sys.modules


def test_the_users_own_policy_is_kept(light, monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    startup.load_libraries()
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
