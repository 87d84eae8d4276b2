"""Small pure helpers the pages share (config, path confinement, discovery, rendering).

The pages import it, and the libraries, as installed packages (`pip install -e .`, which the
Makefile runs); `REPO_ROOT` anchors the relative paths of the configuration.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
