"""Small pure helpers the pages share (config, path confinement, discovery, rendering).

Importing this package puts the repository root on `sys.path`, so that `streamlit run
app/Home.py` (which only adds `app/`) can import the `encoder` and `indexer` libraries.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
