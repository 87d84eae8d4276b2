"""`python -m common.jobs FOLDER`: start the supervisor of the job in FOLDER (see
`supervisor.py`); `JobRunner.submit` runs it."""

import sys
from pathlib import Path

from .supervisor import launch

if __name__ == "__main__":
    if len(sys.argv) != 2 or not Path(sys.argv[1], "job.json").is_file():
        sys.exit("usage: python -m common.jobs JOB_FOLDER (a folder holding job.json)")
    sys.exit(launch(Path(sys.argv[1])))
