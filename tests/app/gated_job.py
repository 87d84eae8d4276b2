"""A job's command held at a gate, for the pages' job tests: `python gated_job.py GATE COMMAND...`
waits until the file GATE exists, then becomes COMMAND (exec: same process, same job), so a test
can look at the page while the job is under way, then let the real command run."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

gate, command = Path(sys.argv[1]), sys.argv[2:]
print("waiting at the gate", flush=True)
while not gate.exists():
    time.sleep(0.05)
os.execv(command[0], command)
