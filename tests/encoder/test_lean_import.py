"""An encoder that runs an export imports no sentence-transformers (about 5 s of imports, with
scikit-learn behind it): every process that only encodes (a Ray worker, the CLI, the service,
a job) starts that much sooner; nor does its `info()` import the BERT modelling code to ask
whether heads were trained (the Search page's first query: ~5 s). The torch model still loads
it when asked for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

ENCODE_WITH_THE_EXPORT = """
import sys
from encoder import load_encoder
enc = load_encoder(sys.argv[1], backend="onnx")
enc.encode(["cats purr"])
enc.info  # what the Search page shows: whether heads exist is a file's question, not torch's
print(enc.backend, "sentence_transformers" in sys.modules,
      "transformers.models.bert.modeling_bert" in sys.modules)
enc.model  # the torch model, loaded on demand
print("sentence_transformers" in sys.modules)
"""


@pytest.mark.slow  # an export and a new process: 15 s, the quick lane's longest test
def test_an_export_encodes_without_importing_sentence_transformers(tiny_model_dir):
    from encoder import load_encoder

    load_encoder(tiny_model_dir, backend="onnx")  # the export exists (made once per home)
    out = subprocess.run([sys.executable, "-c", ENCODE_WITH_THE_EXPORT, str(tiny_model_dir)],
                         capture_output=True, text=True, cwd=REPO, check=True, timeout=300)
    assert out.stdout.split() == ["onnx", "False", "False", "True"], out.stderr[-2000:]
