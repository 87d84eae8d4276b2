"""`training mlm` refuses, before it trains, runs that could not tell anything (issue 26):
- nothing to hold out (one document: a .txt without blank lines, or `--max-docs 1`) used to
  train, save and then crash with KeyError 'top1'; it is refused, naming the fixes (more
  documents, blank lines between documents, or `--eval FILE`); with `--eval` one document trains;
- a run that masks nothing (a tiny `--mlm-probability`, or text made only of special tokens such
  as [MASK]) used to report success with loss 0; it is refused, naming the bound."""

from __future__ import annotations

from pathlib import Path

import pytest

QUICK = ["--max-steps", "1", "--batch-size", "2", "--max-length", "32", "--no-progress"]
DOCS = "\n\n".join(f"Document {i} talks about cells, mice and treatments in a long sentence."
                   for i in range(8))


def mlm(run_cli, model: Path, corpus: Path, out: Path, *flags: str):
    return run_cli("training", "mlm", "--model", str(model), "--corpus", str(corpus),
                   "--out", str(out), *QUICK, *flags)


@pytest.fixture
def corpora(tmp_path) -> dict[str, Path]:
    files = {
        "many": DOCS,
        "one": DOCS.replace("\n\n", " "),  # one document: no blank line
        "masks": "\n\n".join("[MASK] [MASK] [MASK]" for _ in range(8)),
        "specials": "\n\n".join("[CLS] [SEP] [MASK] [PAD]" for _ in range(8)),
    }
    for name, text in files.items():
        (tmp_path / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
    return {name: tmp_path / f"{name}.txt" for name in files}


@pytest.mark.parametrize(("corpus", "flags"), [("one", ()), ("many", ("--max-docs", "1"))])
def test_nothing_to_hold_out_is_refused_before_training(run_cli, tiny_model_dir, tmp_path,
                                                        corpora, corpus, flags):
    out = tmp_path / "run"
    done = mlm(run_cli, tiny_model_dir, corpora[corpus], out, *flags)
    assert done.code == 2, done
    assert "1 document" in done.error and "--eval" in done.error
    assert not out.exists()


def test_one_document_trains_with_eval_texts(run_cli, tiny_model_dir, tmp_path, corpora):
    out = tmp_path / "run"
    done = mlm(run_cli, tiny_model_dir, corpora["one"], out, "--eval", str(corpora["many"]))
    assert done.code == 0, done
    assert "held-out after: top-1" in done.out


@pytest.mark.parametrize(("corpus", "flags", "said"), [
    ("many", ("--mlm-probability", "1e-9"), "--mlm-probability 1e-09 masks about"),
    ("masks", (), "no token that can be masked"),
    ("specials", (), "no token that can be masked"),
])
def test_a_run_that_masks_nothing_is_refused(run_cli, tiny_model_dir, tmp_path, corpora,
                                             corpus, flags, said):
    out = tmp_path / "run"
    done = mlm(run_cli, tiny_model_dir, corpora[corpus], out, *flags)
    assert done.code == 2, done
    assert said in done.error
    assert not (out / "run.json").exists()  # nothing that blocks the corrected command
    again = mlm(run_cli, tiny_model_dir, corpora["many"], out)
    assert again.code == 0, again


def test_held_out_texts_that_mask_nothing_are_refused(run_cli, tiny_model_dir, tmp_path,
                                                      corpora):
    done = mlm(run_cli, tiny_model_dir, corpora["many"], tmp_path / "run", "--eval",
               str(corpora["masks"]))
    assert done.code == 2, done
    assert "held-out" in done.error and "no token that can be masked" in done.error


def test_the_bound_is_per_batch(tiny_model_dir):
    """1 masked token a batch is the least: below it most steps see no masked token."""
    from encoder import load_encoder
    from training.mlm.guards import masked_per_batch

    tok = load_encoder(str(tiny_model_dir), backend="torch").model.tokenizer
    examples = [{"input_ids": tok("a b c d e f g h i j")["input_ids"]}] * 4  # 10 maskable each
    assert masked_per_batch(examples, tok, 0.05, batch_size=2, whole_word=False) == \
        pytest.approx(1.0)
