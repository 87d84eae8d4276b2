"""A stand-in for a long command, for the job runner's tests: `python fake_job.py OUT --steps N`
counts steps into OUT/checkpoint (every `--save` steps, atomically), continues from it when
started again, reports its steps to the job's progress file, and can wait for a gate file
before each step (`--gate`), or fail at a step (`--fail-at`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from common import write_atomic
from common.jobs import job_progress_file

parser = argparse.ArgumentParser()
parser.add_argument("out", type=Path)
parser.add_argument("--steps", type=int, default=3)
parser.add_argument("--save", type=int, default=1)
parser.add_argument("--step-s", type=float, default=0.0)
parser.add_argument("--gate", type=Path)
parser.add_argument("--fail-at", type=int)
args = parser.parse_args()

args.out.mkdir(parents=True, exist_ok=True)
saved = args.out / "checkpoint"
step = int(saved.read_text()) if saved.is_file() else 0
print(f"resumed from step {step}" if step else "starting from step 0", flush=True)
report = job_progress_file()
while step < args.steps:
    while args.gate and not args.gate.exists():
        time.sleep(0.02)
    time.sleep(args.step_s)
    step += 1
    if step == args.fail_at:
        print(f"error: step {step} failed", file=sys.stderr, flush=True)
        sys.exit(3)
    if step % args.save == 0:
        with write_atomic(saved, "w") as fh:
            fh.write(str(step))
    if report:
        report(step, args.steps, unit="steps", phase="counting")
    print(f"step {step}\r", end="", flush=True)  # redrawn like a progress bar
print(f"\nfinished {step} steps", flush=True)
