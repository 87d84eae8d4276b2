"""A stand-in for `python -m training mlm-heads NAME` in the Pretraining page's tests (the real
one takes minutes): `python fake_heads_job.py NAME GATE` reports step 1 of 2 and a checkpoint at
step 50 as the real training lays it out, waits for the file GATE, then saves (untrained) heads
for NAME's weights where the page looks for them and reports 2 of 2."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from common.jobs import job_progress_file
from encoder import load_encoder
from encoder.heads import bundled_heads_dir, new_heads, save_heads

name, gate = sys.argv[1], Path(sys.argv[2])
report = job_progress_file()
folder = bundled_heads_dir(name)
checkpoint = folder / "checkpoints" / "stage-0" / "checkpoint-50"
checkpoint.mkdir(parents=True, exist_ok=True)
(checkpoint / "trainer_state.json").write_text(json.dumps({"global_step": 50}))
(checkpoint / "model.safetensors").write_bytes(b"")
report(1, 2, unit="steps", phase="training")
print("step 1 of 2", flush=True)
while not gate.exists():
    time.sleep(0.05)
enc = load_encoder(name)
save_heads(folder, new_heads(enc.transformer), {"mlm": True, "nsp": True,
                                                "fingerprint": enc.fingerprint})
report(2, 2, unit="steps", phase="training")
print("heads saved", flush=True)
