"""Training page (AppTest): a data file's kind and loss said as the library detects them, settings
from the one table with the recipe's defaults, the `fit` command it will run; then the whole
flow for real on a tiny random BERT: Start runs `python -m training fit` as a job, its progress
and curves arrive while it runs, "Re-index with this model" runs a rebuild job, and the
comparison opens on the Search page with both indexes chosen (the trained model is offered on
the pages that draw a second model)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from apptest_helpers import assert_clean, figures, texts, values
from training_flow import BASE, INDEX, PAIRS, cancel_active, training_folders

APP = Path(__file__).resolve().parents[2] / "app"
NLI = b"".join(json.dumps(r).encode() + b"\n" for r in [
    {"premise": "A man plays guitar.", "hypothesis": "Someone makes music.", "label": "entailment"},
    {"premise": "A man plays guitar.", "hypothesis": "A man sleeps.", "label": "contradiction"},
    {"premise": "Two dogs run.", "hypothesis": "Animals move.", "label": "entailment"}])


@pytest.fixture(scope="module")
def folders(tmp_path_factory, tiny_model_dir) -> dict[str, Path]:
    return training_folders(tmp_path_factory.mktemp("training-page"), tiny_model_dir)


@pytest.fixture
def env(folders, monkeypatch) -> dict[str, Path]:
    for name, folder in folders.items():
        monkeypatch.setenv(name, str(folder))
    yield folders
    cancel_active(folders["BERTSCOPE_HOME"] / "jobs")


def table_with(at, column: str):
    """The first table on the page with `column` (AppTest keeps no dataframe keys)."""
    return next(d.value for d in [*at.table, *at.dataframe] if column in d.value.columns)


def training_page():
    """The Training page as the app runs it (Home.py the entry point, so it can switch pages)."""
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(APP / "Home.py"), default_timeout=240).switch_page(
        "pages/7_Training.py").run()


def on_data_file(at, path: str):
    at.radio(key="train-source").set_value("A data file on the server").run()
    at.text_input(key="train-path").set_value(path).run()
    return at


def command(at) -> str:
    return next(t for t in texts(at.caption) if "In a terminal the same is" in t)


def test_a_data_file_is_said_with_its_kind_and_loss_and_the_command(env):
    at = on_data_file(training_page(), PAIRS)
    assert_clean(at)
    said = " ".join(texts(at.markdown))
    assert "scored pairs (sentence1, sentence2, a similarity score): 80 rows" in said
    assert "Loss: **cosent** (the default for scored data)" in said
    assert at.number_input(key=f"train-dev-{Path(PAIRS).stem}").value == 16  # a fifth held out
    at.sidebar.selectbox[0].set_value(f"{BASE} (trained)").run()
    at.text_input(key="train-set-pairs-batch_size").set_value("4").run()
    at.text_input(key="train-set-pairs-learning_rate").set_value("5e-5").run()
    cmd = command(at)
    runs = env["BERTSCOPE_RUNS_ROOT"]
    assert (f"fit --train {env['BERTSCOPE_DATA'] / PAIRS} --model {runs / BASE} --dev DEV "
            f"--epochs 1.0 --batch-size 4 --lr 5e-05 --out {runs / 'tiny-base-pairs'}") in cmd
    assert "--seed" not in cmd  # only what differs from the defaults


def test_an_uploaded_nli_file_gets_mnrl_and_no_dev_part(env):
    at = training_page()
    at.radio(key="train-source").set_value("Upload a data file").run()
    at.get("file_uploader")[0].upload("nli.jsonl", NLI).run()
    assert_clean(at)
    said = " ".join(texts(at.markdown))
    assert "NLI pairs (premise, hypothesis, entailment / neutral / contradiction): 3 rows" in said
    assert "Loss: **mnrl**" in said
    assert any(t.startswith("No dev set: nli data has no scores") for t in texts(at.caption))
    kept = list((env["BERTSCOPE_HOME"] / "training-data").glob("*-nli.jsonl"))
    assert len(kept) == 1 and kept[0].read_bytes() == NLI  # kept for the job, by content


REPEATING = b"".join(json.dumps({"sentence1": f"sentence {i % 20}",
                                 "sentence2": f"sentence {(i + 3) % 20}",
                                 "score": i % 5}).encode() + b"\n" for i in range(60))


def test_an_upload_whose_pairs_all_share_sentences_is_refused_before_start(env):
    """Issue 52: 60 scored pairs over 20 repeated sentences: the dev split took the whole file
    and the run failed 18 s in ("train.jsonl: no rows"). Now the form says why no split exists,
    under the dev field, and Start stays disabled; 0 pairs held out starts."""
    at = training_page()
    at.radio(key="train-source").set_value("Upload a data file").run()
    at.get("file_uploader")[0].upload("repeats.jsonl", REPEATING).run()
    assert not at.exception
    refused = " ".join(texts(at.error))
    assert "no held-out part can be cut from these 60 pairs" in refused
    assert "Hold out 0 pairs" in refused
    start = [b for b in at.button if b.key == "train-start"]
    assert start and start[0].disabled
    dev = next(n for n in at.number_input if str(n.key).startswith("train-dev-"))
    dev.set_value(0).run()
    assert not [t for t in texts(at.error) if "no held-out part" in t]
    assert not [b for b in at.button if b.key == "train-start"][0].disabled


def test_a_dev_split_says_each_side_s_count(env):
    at = on_data_file(training_page(), PAIRS)
    assert any(t.startswith("Dev set: ") and "left to train on" in t for t in texts(at.caption))


def test_bad_inputs_are_sentences(env):
    at = on_data_file(training_page(), "../outside.jsonl")
    assert any("lies outside the data folder" in t for t in texts(at.error))
    (env["BERTSCOPE_DATA"] / "words.csv").write_text("a,b\nx,y\n", encoding="utf-8")
    at = on_data_file(training_page(), "words.csv")
    assert any(t.startswith("Cannot train on words.csv:") and "'sentence1'" in t
               for t in texts(at.error))
    at = on_data_file(training_page(), PAIRS)
    at.text_input(key="train-set-pairs-learning_rate").set_value("0").run()
    assert texts(at.error) == ["lr: must be > 0, got 0.0",
                               "Not started: 1 setting refused (lr: must be > 0, got 0.0)."]
    assert at.button(key="train-start").disabled


def test_a_recipe_opens_with_its_own_settings(env, monkeypatch):
    """A recipe whose files the data root lacks says which; one that loads shows its stages and
    puts its values in the settings."""
    at = training_page()  # the shipped en-sts: its files are not in the test data root
    (said,) = texts(at.warning)
    root = env["BERTSCOPE_DATA"]
    assert said.startswith("The recipe **en-sts** trains on data that this server does not "
                           "have yet")
    assert (f"**SNLI (dev + test gold-labelled pairs)**: on the hub as `stanfordnlp/snli` "
            f"(licence: CC BY-SA 4.0). Put it here: `{root / 'snli/pairs.jsonl'}` (premise, "
            "hypothesis, label") in said
    assert f"`{root / 'stsb-en/dev.jsonl'}` (sentence1, sentence2, score" in said
    assert not at.error and not [b for b in at.button if b.key == "train-start"]
    at.button(key="train-upload-instead").click().run()
    assert at.radio(key="train-source").value == "Upload a data file"
    kinds = table_with(at, "kind")
    assert kinds["kind"].tolist() == ["scored", "binary", "nli", "triplet"]
    assert kinds["fields"][3] == "anchor, positive, and optionally negative (a hard negative)"
    assert [b.label for b in at.get("download_button")] == [
        "Example scored file", "Example binary file", "Example nli file", "Example triplet file"]
    recipes = env["BERTSCOPE_DATA"].parent / "recipes"
    recipes.mkdir(exist_ok=True)
    (recipes / "tiny.json").write_text(json.dumps({
        "recipe": "tiny", "model": str(env["BERTSCOPE_RUNS_ROOT"] / BASE), "batch_size": 3,
        "eval_steps": 7, "stages": [{"name": "pairs", "train": [PAIRS], "loss": "cosent"}]}))
    import training.run_plan as plan

    monkeypatch.setattr(plan, "RECIPES", recipes)
    monkeypatch.setattr(plan.shipped_recipes, "__defaults__", (recipes,))
    at = training_page()
    assert_clean(at)
    assert at.selectbox(key="train-recipe").value == "tiny"
    assert at.text_input(key="train-set-tiny-batch_size").value == "3"
    assert at.text_input(key="train-set-tiny-eval_steps").value == "7"
    assert at.sidebar.selectbox[0].value == f"{BASE} (trained)"  # the recipe's model
    assert at.dataframe[0].value["loss"].tolist() == ["cosent"]
    assert f"fit --config {recipes / 'tiny.json'} --data {env['BERTSCOPE_DATA']} --model" \
        in command(at)


def test_a_failed_run_says_so_and_resumes_from_its_checkpoint(env, tmp_path, monkeypatch):
    """A fit job that died after a checkpoint: the page shows the error and its log, and
    "Resume from step 20" starts the job's resume command as a new job."""
    import sys

    from common.jobs import JobRunner, JobSpec, JobState

    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))  # its jobs apart from the rest
    run = env["BERTSCOPE_RUNS_ROOT"] / "crashed"
    checkpoint = run / "checkpoints" / "stage-0" / "checkpoint-20"
    crash = (f"import pathlib; p = pathlib.Path({str(checkpoint)!r}); p.mkdir(parents=True); "
             "(p / 'trainer_state.json').write_text('{}'); (p / 'model.safetensors').touch(); "
             "print('out of memory at step 21'); raise SystemExit(1)")
    runner = JobRunner()
    first = runner.submit(JobSpec("fit", f"fit:{run}", "Fine-tune into crashed",
                                  (sys.executable, "-c", crash), (sys.executable, "-c", "0"),
                                  outputs={"run": str(run)}))
    assert runner.wait(first.id, timeout=60).state is JobState.FAILED
    at = training_page()
    assert any(t.startswith("Failed after") for t in texts(at.error))
    assert "out of memory at step 21" in at.get("code")[0].value  # the log, open
    at.button(key=f"train-resume-{first.id}").click().run()
    again = runner.jobs(kind="fit")[0]
    assert again.resumes == first.id and again.spec.argv == (sys.executable, "-c", "0")
    assert runner.wait(again.id, timeout=60).state is JobState.DONE


def test_a_cross_validation_recipe_trains_the_model_to_ship_after_its_folds(env, shared_data,
                                                                            monkeypatch):
    """scifact scores one model per fold, then trains the one to ship (`final`, by default):
    the page says so and re-indexes with `final/`."""
    monkeypatch.setenv("BERTSCOPE_DATA", str(shared_data))
    at = training_page()
    at.selectbox(key="train-recipe").set_value("scifact").run()
    assert_clean(at)
    (said,) = texts(at.info)
    assert said.startswith("scifact cross-validates first: one model per fold")
    assert "in the run folder's `final/`: the model this page re-indexes with" in said
    assert not at.button(key="train-start").disabled


def progress_of(at) -> tuple[int, int] | None:
    """(done, total) from the running job's bar, None when it shows no steps yet."""
    for text in (e.proto.text for e in at.get("progress")):
        found = re.search(r"training: (\d+) of (\d+) steps", text)
        if found:
            return int(found[1]), int(found[2])
    return None


@pytest.mark.slow  # real `python -m training fit` and `python -m indexer rebuild` processes
def test_train_watch_reindex_and_open_the_comparison(env):
    from common.jobs import JobRunner, JobState

    at = on_data_file(training_page(), PAIRS)
    at.sidebar.selectbox[0].set_value(f"{BASE} (trained)").run()
    for field, value in (("batch_size", "2"), ("logging_steps", "1"), ("eval_steps", "10")):
        at.text_input(key=f"train-set-pairs-{field}").set_value(value).run()
    at.text_input(key="train-epochs").set_value("5").run()
    at.button(key="train-start").click().run()
    assert_clean(at)
    runner = JobRunner()
    job = runner.get(at.session_state["train-job"])
    run = Path(job.spec.outputs["run"])
    assert run == env["BERTSCOPE_RUNS_ROOT"] / "tiny-base-pairs"

    seen = []  # (done, total, loss points drawn) while it runs
    deadline = time.monotonic() + 600
    while (job := runner.get(job.id)).active:
        assert time.monotonic() < deadline, job.log_tail()
        at.run()
        assert_clean(at)
        assert "Cancel" in [b.label for b in at.button]
        step = progress_of(at)
        if step and 0 < step[0] < step[1] and figures(at):  # mid-run, not the 0-step start
            seen.append((*step, len(values(figures(at)[0]["data"][0]["x"]))))
        if len(seen) >= 3:  # progress shown: let the job finish without page runs beside it
            job = runner.wait(job.id, timeout=max(1.0, deadline - time.monotonic()))
            break
        time.sleep(0.5)
    assert job.state is JobState.DONE, job.log_tail()
    assert seen, "no progress seen while the job ran"
    done, total, points = seen[-1]
    assert 0 < done < total == 5 * 32 and points > 0  # 64 training pairs / 2, five epochs

    at.run()
    assert_clean(at)
    assert any(t.startswith("Done after") for t in texts(at.success))
    curve = figures(at)[0]["data"]
    assert len(values(curve[0]["x"])) == total and len(values(curve[1]["x"])) >= total // 10
    assert any(t.startswith("Dev Spearman × 100:") for t in texts(at.markdown))
    for page_key in ("attn-compare", "dis-compare"):  # the pages with a second model list it
        assert f"open-{page_key}-{job.id}" in [b.key for b in at.button]
    from appkit.config import AppConfig
    from appkit.model_picker import model_options

    assert model_options(AppConfig.from_env())["tiny-base-pairs (trained)"] == str(run)

    at.button(key=f"train-reindex-{job.id}").click().run()
    (rebuild,) = [j for j in runner.jobs(kind="rebuild") if j.spec.outputs["model"] == str(run)]
    at.run()
    assert "Re-indexing…" in [b.label for b in at.button]  # its own progress, while it runs
    rebuild = runner.wait(rebuild.id, timeout=600)
    assert rebuild.state is JobState.DONE, rebuild.log_tail()
    at.run()
    assert_clean(at)
    new = f"{INDEX}-tiny-base-pairs"
    at.button(key=f"train-compare-{rebuild.id}").click().run()
    assert at.session_state["search-index"] == INDEX
    assert at.session_state["search-compare-wanted"] == new

    at.switch_page("pages/1_Search.py").run()  # where the button sent the browser
    assert_clean(at)
    assert at.sidebar.selectbox(key="search-index").value == INDEX
    assert at.sidebar.selectbox(key="search-compare").value == new
    at.text_input(key="search-query").set_value("oil prices").run()
    assert_clean(at)
    assert [s.value for s in at.subheader] == [f"{INDEX} · {BASE}", f"{new} · tiny-base-pairs"]


def stand_in_run(runner, run: Path, code: str, kind: str = "fit"):
    """A job of `kind` that runs `code` (python) in place of training into `run`."""
    import sys

    from common.jobs import JobSpec

    return runner.submit(JobSpec(kind, f"{kind}:{run}", f"Fine-tune into {run.name}",
                                 (sys.executable, "-c", code), outputs={"run": str(run)}))


def test_every_run_is_listed_and_the_models_page_points_at_the_unfinished(env, tmp_path,
                                                                          monkeypatch):
    """Two runs, one cancelled: both in the Training page's table and each in its own section
    (the second run does not hide the first); the Models page lists the cancelled one and links
    to the Training page."""
    from common.jobs import JobRunner, JobState

    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    runner = JobRunner()
    runs = env["BERTSCOPE_RUNS_ROOT"]
    done = stand_in_run(runner, runs / "first", "print('trained')")
    assert runner.wait(done.id, timeout=60).state is JobState.DONE
    stopped = stand_in_run(runner, runs / "second", "import time; time.sleep(60)")
    deadline = time.monotonic() + 60  # cancelled while it runs: on a loaded machine a cancel
    while runner.get(stopped.id).state is JobState.QUEUED:  # can beat the start ("Cancelled:")
        assert time.monotonic() < deadline
        time.sleep(0.1)
    runner.cancel(stopped.id, grace_s=2)
    at = training_page()
    assert_clean(at)
    table = table_with(at, "result")
    assert table["run"].tolist() == ["second", "first"]
    assert table["state"].tolist() == ["cancelled", "done"]
    assert table["result"].tolist()[1] == "trained (no dev set)"
    assert [e.label for e in at.expander if e.label.startswith("Fine-tune into")] == [
        "Fine-tune into second · cancelled", "Fine-tune into first · done"]
    assert any(t.startswith("Cancelled after") for t in texts(at.warning))
    assert any(t.startswith("Done after") for t in texts(at.success))

    from streamlit.testing.v1 import AppTest

    models = AppTest.from_file(str(APP / "Home.py"), default_timeout=120).switch_page(
        "pages/5_Models.py").run()
    assert not models.exception
    unfinished = table_with(models, "result")
    assert unfinished["run"].tolist() == ["second"] and unfinished["state"][0] == "cancelled"
    said = " ".join(texts(models.markdown))
    assert "Runs without a model yet (1)" in said and "on the Training page" in said


def test_a_refused_setting_is_said_next_to_its_field_and_nothing_starts(env):
    at = on_data_file(training_page(), PAIRS)
    at.text_input(key="train-epochs").set_value("-1").run()
    assert texts(at.error)[0] == "epochs: must be > 0 and <= 1000, got -1.0"
    assert at.button(key="train-start").disabled
    at.text_input(key="train-epochs").set_value("two").run()
    assert texts(at.error)[0] == "epochs: 'two' is not a number"
    at.text_input(key="train-epochs").set_value("2").run()
    assert_clean(at)
    assert not at.button(key="train-start").disabled
    assert "--epochs 2.0" in command(at)  # as typed, never replaced


@pytest.mark.slow  # real `python -m training adapt` and `python -m indexer rebuild` processes
def test_adapt_to_an_index_then_reindex_and_compare_on_the_same_chunks(env, tmp_path,
                                                                      monkeypatch):
    """One click adapts the index's own (tiny) encoder to its dozen documents; the check is too
    small to say it helped, and the page says so, offering re-indexing only as "anyway"; the
    re-indexed copy holds the same chunks, and the comparison opens on the Search page."""
    from common.jobs import JobRunner, JobState
    from indexer import SemanticIndex

    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    at = training_page()
    assert at.selectbox(key="adapt-index").value == INDEX
    at.button(key="adapt-start").click().run()
    runner = JobRunner()
    job = runner.wait(at.session_state["train-job"], timeout=600)
    assert job.state is JobState.DONE, job.log_tail()
    assert job.spec.kind == "adapt"
    at.run()
    assert_clean(at)
    assert any(t.startswith("Too few held-out queries") for t in texts(at.warning))
    assert any(t.startswith("The index has too few documents (12) to hold a tenth out")
               for t in texts(at.caption))
    assert table_with(at, "result")["result"][0] == "no check: too few documents to hold any out"
    (curve,) = [f for f in figures(at) if f["layout"]["annotations"][0]["text"] == "training loss"]
    assert len(curve["layout"]["annotations"]) == 1  # no dev set: the loss alone, no empty panel
    reindex = at.button(key=f"train-reindex-{job.id}")
    assert reindex.label == "Re-index anyway" and reindex.proto.type == "secondary"
    reindex.click().run()
    (rebuild,) = runner.jobs(kind="rebuild")
    rebuild = runner.wait(rebuild.id, timeout=600)
    assert rebuild.state is JobState.DONE, rebuild.log_tail()
    source = SemanticIndex.open(rebuild.spec.outputs["source"])
    new = SemanticIndex.open(rebuild.spec.outputs["index"])
    assert new.stats().chunks == source.stats().chunks
    at.run()
    at.button(key=f"train-compare-{rebuild.id}").click().run()
    assert at.session_state["search-index"] == INDEX
