"""Bad input to `python -m training` and the training library: nothing lost or misreported, no
dead ends after a failed start, no tracebacks, and every refusal names the flag, file or line."""

from __future__ import annotations

import json
import logging

import pytest

from common import json_text
from training import FitConfig, Stage, TrainingError, fit, load_pairs
from training.evaluate import evaluate_model
from training.losses import LOSSES
from training.run_folder import RUN_FILE, prepare_out


def fit_argv(model, train, out, *extra) -> list[str]:
    return ["fit", "--model", str(model), "--train", str(train), "--loss", "cosine",
            "--out", str(out), "--batch-size", "2", "--max-length", "32", "--no-progress",
            *map(str, extra)]


# -- a failed start is no dead end ------------------------------------------------------------
def test_a_failed_start_blocks_neither_a_rerun_nor_resume(run_cli, tiny_model_dir, sts_file,
                                                          tmp_path):
    out = tmp_path / "run"
    failed = run_cli("training", *fit_argv(tmp_path / "no-such-model", sts_file, out))
    assert failed.code == 2 and "no-such-model" in failed.error
    assert not (out / RUN_FILE).exists()  # nothing that claims a run was made
    done = run_cli("training", *fit_argv(tiny_model_dir, sts_file, out))
    assert done.code == 0, str(done)
    assert json.loads((out / RUN_FILE).read_text())["finished"] is True


def test_resume_after_a_failed_start_starts_the_run(run_cli, tiny_model_dir, sts_file, tmp_path):
    out = tmp_path / "run"
    assert run_cli("training", *fit_argv(tmp_path / "no-such-model", sts_file, out)).code == 2
    done = run_cli("training", *fit_argv(tiny_model_dir, sts_file, out, "--resume"))
    assert done.code == 0, str(done)
    assert "holds nothing to continue" in done.log


@pytest.mark.parametrize("resume", [False, True])
def test_a_run_that_never_trained_is_cleared(tmp_path, resume):
    """A crash before the first checkpoint (here: a run.json with other settings and no
    checkpoint) must not refuse the next start, with or without --resume."""
    out = tmp_path / "run"
    (out / "checkpoints" / "stage-0").mkdir(parents=True)
    (out / RUN_FILE).write_text(json.dumps({"format": 1, "identity": {"model": "other"},
                                            "finished": False, "stages_done": []}))
    (out / "train.log").write_text("started\n")
    assert prepare_out(out, {"model": "mine"}, resume=resume) == out.expanduser()
    assert sorted(p.name for p in out.iterdir()) == []


def test_a_run_with_a_checkpoint_still_needs_resume(tmp_path):
    out = tmp_path / "run"
    checkpoint = out / "checkpoints" / "stage-0" / "checkpoint-2"
    checkpoint.mkdir(parents=True)  # a whole one: state and weights (partial: test_checkpoints)
    (checkpoint / "trainer_state.json").write_text("{}")
    (checkpoint / "model.safetensors").write_bytes(b"")
    (out / RUN_FILE).write_text(json.dumps({"format": 1, "identity": {"model": "mine"},
                                            "finished": False, "stages_done": []}))
    with pytest.raises(TrainingError, match="pass --resume"):
        prepare_out(out, {"model": "mine"}, resume=False)
    assert prepare_out(out, {"model": "mine"}, resume=True) == out


# -- numbers and names refused with their flag, before anything is written --------------------
@pytest.mark.parametrize("flag,value,said", [
    ("--epochs", "inf", "argument --epochs: must be a finite number"),
    ("--epochs", "nan", "argument --epochs: must be a finite number"),
    ("--epochs", "0", "argument --epochs: must be > 0"),
    ("--lr", "inf", "argument --lr: must be a finite number"),
    ("--lr", "abc", "argument --lr: 'abc' is not a number"),
    ("--seed", "-1", "argument --seed: must be >= 0"),
    ("--warmup", "1", "argument --warmup: must be < 1"),
    ("--max-length", "4", "argument --max-length: must be >= 8"),
    ("--eval-steps", "0", "argument --eval-steps: must be >= 1"),
    ("--max-rows", "2.5", "argument --max-rows: '2.5' is not a whole number"),
    ("--prompt", "qurey", "Invalid prompt 'qurey'. Valid: None, query, passage"),
    ("--max-length", "100000", "--max-length 100000 is more than"),
])
def test_fit_numbers_and_names(run_cli, tiny_model_dir, sts_file, tmp_path, flag, value, said):
    out = tmp_path / "run"
    done = run_cli("training", *fit_argv(tiny_model_dir, sts_file, out, flag, value))
    assert done.code == 2 and said in done.error, str(done)
    assert not (out / RUN_FILE).exists()


def test_threads_zero_is_refused(run_cli, sts_file, tmp_path):
    done = run_cli("training", "--threads", "0", *fit_argv("minilm", sts_file, tmp_path / "o"))
    assert done.code == 2 and "argument --threads: must be >= 1, got 0" in done.error


def test_out_under_a_file_names_the_flag(run_cli, tiny_model_dir, sts_file, tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    done = run_cli("training", *fit_argv(tiny_model_dir, sts_file, blocker / "run"))
    assert done.code == 2 and f"--out {blocker / 'run'}: cannot use it" in done.error


def test_a_model_argument_that_is_no_model(run_cli, sts_file, tmp_path):
    done = run_cli("training", "evaluate", tmp_path, "--sts", sts_file)  # a folder, not a model
    assert done.code == 2 and f"{tmp_path} is not a model folder" in done.error


def test_pooling_modes_checked_before_the_first_run(run_cli, tiny_model_dir, sts_file,
                                                    tmp_path):
    argv = fit_argv(tiny_model_dir, sts_file, tmp_path / "exp")
    argv[0:1] = ["experiment", "pooling"]
    done = run_cli("training", *argv, "--modes", "cls,sum")
    assert done.code == 2 and "Invalid pooling mode 'sum'" in done.error
    assert not (tmp_path / "exp" / "cls").exists()  # cls did not train first


# -- undefined correlations: an error or 0, never NaN ------------------------------------------
@pytest.mark.parametrize("rows,said", [
    ([{"sentence1": "a b", "sentence2": "c d", "score": 3.0}], "has 1 valid pair"),
    ([{"sentence1": f"a {i}", "sentence2": f"b {i}", "score": 2.0} for i in range(4)],
     "has the same gold score (2) on all 4 pairs"),
])
def test_dev_and_test_sets_without_a_defined_spearman(run_cli, tiny_model_dir, sts_file,
                                                      tmp_path, jsonl, rows, said):
    dev = jsonl(tmp_path / "dev.jsonl", rows)
    out = tmp_path / "run"
    done = run_cli("training", *fit_argv(tiny_model_dir, sts_file, out, "--dev", dev))
    assert done.code == 2 and f"{dev}: the dev set {said}" in done.error
    assert not out.exists() or not any(out.iterdir())
    done = run_cli("training", "evaluate", tiny_model_dir, "--sts", dev)
    assert done.code == 2 and f"{dev}: the --sts file {said}" in done.error


def test_a_model_that_scores_every_pair_alike_scores_zero(run_cli, tiny_model_dir, tmp_path,
                                                          jsonl):
    same = jsonl(tmp_path / "same.jsonl", [  # one pair four times: one cosine, four gold scores
        {"sentence1": "one text", "sentence2": "the other", "score": float(i)} for i in range(4)])
    report = tmp_path / "scores.json"
    done = run_cli("training", "evaluate", tiny_model_dir, "--sts", same, "--json", report)
    assert done.code == 0 and "Spearman 0.00" in done.out  # no correlation (`metrics.sts`)
    text = report.read_text()
    assert "NaN" not in text and json.loads(text)["sts"][0]["spearman"] == 0.0


def test_json_text_is_strict():
    text = json_text({"a": float("nan"), "b": [1.0, float("inf")], "c": {"d": -float("inf")}})
    assert json.loads(text) == {"a": None, "b": [1.0, None], "c": {"d": None}}


def test_the_training_log_holds_null_for_a_nan_loss(tmp_path):
    """A diverging run logs loss NaN: log.jsonl must stay JSON that strict readers accept."""
    from types import SimpleNamespace

    from training.callbacks import JsonlLogCallback

    log = tmp_path / "log.jsonl"
    state = SimpleNamespace(is_world_process_zero=True, global_step=3, epoch=0.5)
    JsonlLogCallback(log, 0).on_log(None, state, None, logs={"loss": float("nan"), "lr": 1e-5})
    text = log.read_text()
    assert "NaN" not in text and json.loads(text)["loss"] is None


def test_evaluate_json_to_a_missing_folder_fails_before_the_model(run_cli, sts_file, tmp_path):
    done = run_cli("training", "evaluate", "no-such-model", "--sts", sts_file, "--json",
                   tmp_path / "nope" / "x.json")
    assert done.code == 2 and "--json" in done.error and "does not exist" in done.error


# -- scores on a 0-1 scale -----------------------------------------------------------------------
def test_scores_within_0_1_are_not_divided_by_5(tmp_path, jsonl, sts_file, caplog):
    unit = jsonl(tmp_path / "unit.jsonl", [
        {"sentence1": f"a {i}", "sentence2": f"b {i}", "score": s}
        for i, s in enumerate([0.1, 0.45, 0.8, 0.95])])
    data = load_pairs(unit)
    assert (data.kind, data.score_max) == ("scored", 1.0)
    with caplog.at_level(logging.WARNING, logger="bertscope.training"):
        scaled = LOSSES["cosine"].prepare(data, 0)
    assert scaled["score"] == pytest.approx([0.1, 0.45, 0.8, 0.95])
    assert "0-1 scale" in caplog.text and str(unit) in caplog.text
    stsb = load_pairs(sts_file)  # 0-5: divided by 5, no warning
    assert stsb.score_max == 5.0
    assert LOSSES["cosine"].prepare(stsb, 0)["score"][0] == pytest.approx(4.8 / 5)


# -- files: malformed, wrong fields, not UTF-8 -------------------------------------------------
def test_training_file_not_utf8_is_a_bad_row(tmp_path):
    path = tmp_path / "t.jsonl"
    good = [json.dumps({"sentence1": f"a {i}", "sentence2": "b", "score": i}).encode()
            for i in range(3)]
    path.write_bytes(b"\n".join([*good, b'{"sentence1": "caf\xe9", "sentence2": "x", "score": 1}'])
                     + b"\n")
    data = load_pairs(path)
    assert len(data) == 3 and str(data.bad_rows[0]).startswith("row 4: not UTF-8")


@pytest.fixture
def beir(tmp_path):
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": f"c{i}", "text": f"doc {i}"}) + "\n" for i in range(3)))
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q0", "text": "doc"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\tc0\t1\n")
    return folder


@pytest.mark.parametrize("file,content,said", [
    ("queries.jsonl", '{"_id": "q0", "text": "doc"}\n{"_id": "q1", "text": \n',
     "queries.jsonl:2: malformed JSON"),
    ("queries.jsonl", '{"id": "q0", "query": "doc"}\n', "queries.jsonl:1: no '_id' or 'text'"),
    ("corpus.jsonl", '{"_id": "c0", "text": "a"}\n{"doc_id": "c1"}\n', "corpus.jsonl:2: no '_id'"),
    ("qrels/test.tsv", "query-id\tcorpus-id\tscore\nq0 c0 1\n", "test.tsv:2: 1 column(s)"),
    ("qrels/test.tsv", "query-id\tcorpus-id\tscore\nq0\tc0\tabc\n",
     "test.tsv:2: score 'abc' is not a whole number"),
    ("qrels/test.tsv", "query-id\tcorpus-id\tscore\nQ9\tc0\t1\n",
     "has judgements in"),
])
def test_beir_files_that_are_wrong(run_cli, beir, file, content, said):
    (beir / file).write_text(content)
    done = run_cli("training", "evaluate", "no-such-model", "--beir", beir)
    assert done.code == 2 and said in done.error, str(done)


# -- library calls with wrong types ----------------------------------------------------------------
@pytest.mark.parametrize("call,error,said", [
    (lambda: load_pairs(None), TypeError, "data file must be"),
    (lambda: load_pairs(5), TypeError, "data file must be"),
    (lambda: evaluate_model("minilm", sts="one.jsonl"), TrainingError, "not one"),
    (lambda: evaluate_model(None), TypeError, "model must be"),
    (lambda: fit({"model": "minilm"}), TypeError, "config must be a FitConfig"),
    (lambda: fit(FitConfig("minilm", Stage(("a.jsonl",), "cosine"), "o")), TrainingError,
     "stages must be a tuple"),
    (lambda: fit(FitConfig("minilm", (Stage("a.jsonl", "cosine"),), "o")), TrainingError,
     "not one: use ('a.jsonl',)"),
    (lambda: fit(FitConfig("minilm", (Stage(("a",), "cosine"),), "o", batch_size="16")),
     TrainingError, "--batch-size: must be an integer >= 1, got '16'"),
    (lambda: fit(FitConfig("minilm", (Stage(("a",), "cosine", float("nan")),), "o")),
     TrainingError, "--epochs: must be a finite number > 0"),
])
def test_library_calls_with_wrong_types(call, error, said):
    with pytest.raises(error) as info:
        call()
    assert said in str(info.value)


def test_a_tsv_datasets_cannot_parse_names_the_parser_error(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text('sentence1\tsentence2\tscore\n"unclosed\tquote\t1\n')
    with pytest.raises(TrainingError, match="EOF inside string"):  # not "An error occurred..."
        load_pairs(path)
