"""Third-round bad inputs to training, jobs and the app (issue 41): absurd numbers in recipes and
stages, files that are not UTF-8 text (recipes in UTF-16 or Latin-1; training files that are a
JSON array, UTF-16, gzip, or a CSV with only its header), a 300-character upload name, damaged
job records, a jobs folder that cannot be written, and the staging folder a killed export left."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from .probe import Case, Outcome, call, cli

ROWS = [{"sentence1": "A man plays a guitar.", "sentence2": "A man plays guitar.", "score": 4.8},
        {"sentence1": "A dog runs.", "sentence2": "A cat sleeps.", "score": 0.4}]
LINES = "".join(json.dumps(r) + "\n" for r in ROWS)
RECIPE = {"recipe": "café", "model": "minilm", "max_length": 32,
          "stages": [{"train": ["sts.jsonl"], "loss": "cosine"}]}


def _recipe(**changes) -> str:
    recipe = json.loads(json.dumps(RECIPE))
    stage = changes.pop("stage", {})
    recipe["stages"][0].update(stage)
    return json.dumps({**recipe, **changes}, ensure_ascii=False)


FILES: dict[str, str | bytes] = {
    "recipes/utf16.json": _recipe().encode("utf-16"),
    "recipes/latin1.json": _recipe().encode("latin-1"),
    "recipes/huge-int.json": _recipe(stage={"epochs": 10**400}),
    "recipes/epochs-1e9.json": _recipe(stage={"epochs": 1e9}),
    "pairs/array.json": json.dumps(ROWS, indent=1),
    "pairs/utf16.jsonl": LINES.encode("utf-16"),
    "pairs/packed.jsonl": gzip.compress(LINES.encode()),
    "pairs/header.csv": "sentence1,sentence2,score\n",
}


# -- python -m training fit ---------------------------------------------------------------------
def _fit_recipe(bad: str, name: str, note: str = "") -> Case:
    def run(ws) -> Outcome:
        return cli("training", "fit", "--config", f"{{W}}/recipes/{name}.json", "--data", "{W}",
                   "--out", str(ws.root / "runs" / f"r-{name}"), "--no-progress")(ws)

    return Case("python -m training fit", bad, run, note=note)


FIT = [
    _fit_recipe("a recipe saved as UTF-16", "utf16",
                "says UTF-16 and to save it as UTF-8 (a UnicodeDecodeError traceback)"),
    _fit_recipe("a recipe saved as Latin-1", "latin1", "names the byte and the line"),
    _fit_recipe("a recipe whose epochs is a 401-digit integer", "huge-int",
                "the bound and the number's size (an OverflowError traceback)"),
    _fit_recipe("a recipe whose stage runs 1e9 epochs", "epochs-1e9",
                "refused with the bound (1000): the run would never end"),
    Case("python -m training fit", "--epochs 1e9",
         cli("training", "fit", "--model", "minilm", "--train", "{W}/sts.jsonl", "--epochs",
             "1e9", "--out", "{W}/runs/e9")),
]


# -- training library ---------------------------------------------------------------------------
def _load(name: str):
    return call(lambda ws: __import__("training").load_pairs(ws.root / name))


def _stage_epochs(ws):
    from training import FitConfig, Stage, fit

    return fit(FitConfig("minilm", (Stage((str(ws.root / "sts.jsonl"),), "cosine", 1e9),),
                         str(ws.root / "runs" / "lib-e9")))


TRAINING = [
    Case("training library", "fit(FitConfig(stages=(Stage(..., epochs=1e9),)))",
         call(_stage_epochs)),
    Case("training library", "load_pairs of a JSON array (.json)", _load("pairs/array.json")),
    Case("training library", "load_pairs of UTF-16 JSON Lines", _load("pairs/utf16.jsonl")),
    Case("training library", "load_pairs of a gzip file named .jsonl",
         _load("pairs/packed.jsonl")),
    Case("training library", "load_pairs of a CSV with only its header",
         _load("pairs/header.csv"), note="no pairs to train on (datasets: 'corresponds to no "
                                         "data')"),
]


# -- jobs (common.jobs) -------------------------------------------------------------------------
DAMAGE = {"not-json": "{state: done", "empty": "", "unknown-state": '{"state": "paused"}',
          "a-list": '["done"]', "string-time": '{"state": "done", "started": "yesterday"}',
          "a-folder": None}


def _plant_jobs(root: Path) -> Path:
    """A jobs folder: one healthy fit job (the oldest) and one of each damaged state.json."""
    from common.jobs import JobSpec, JobState
    from common.jobs.records import JobStatus, write_spec

    if root.exists():
        return root
    for i, (name, state) in enumerate({"healthy": json.dumps(JobStatus(
            JobState.DONE, started=1.0, ended=3.0).to_json()), **DAMAGE}.items()):
        folder = root / name
        folder.mkdir(parents=True)
        write_spec(folder, name, JobSpec("fit", f"fit:{name}", f"Fine-tune {name}", ("true",),
                                         outputs={"run": str(root / "runs" / name)}),
                   float(i), None)
        if state is None:
            (folder / "state.json").mkdir()
        else:
            (folder / "state.json").write_text(state, encoding="utf-8")
    return root


def _listed(ws) -> str:
    from common.jobs import JobRunner

    runner = JobRunner(_plant_jobs(ws.root / "jobs-damaged"))
    jobs = runner.jobs()
    assert len(jobs) == 1 + len(DAMAGE), [j.id for j in jobs]
    flagged = [j.id for j in jobs if "is damaged" in runner.describe(j)]
    assert sorted(flagged) == sorted(DAMAGE), flagged
    return f"{len(jobs)} jobs listed; {len(flagged)} failed, each naming its damaged state.json"


def _read_only_submit(ws) -> Outcome:
    import sys

    from common.jobs import JobRunner, JobSpec

    from .small_disk import NoSmallDisk, read_only

    runner = JobRunner(ws.root / "jobs-ro")
    try:
        with read_only(runner.root):
            return call(lambda w: runner.submit(JobSpec("fit", "k", "a run",
                                                        (sys.executable, "-c", "pass"))))(ws)
    except NoSmallDisk as exc:
        return Outcome("not tried", f"cannot make a folder read-only here: {exc}",
                       traceback=True)


JOBS = [
    Case("jobs (common.jobs)", "JobRunner.jobs() over damaged state.json files (not JSON, "
         "empty, an unknown state, a list, a string time, a folder)", call(_listed), "accepted",
         "every job listed; the damaged ones as failed, naming the record (one made jobs() "
         "raise)"),
    Case("jobs (common.jobs)", "submit into a read-only jobs folder", _read_only_submit,
         note="JobError naming the folder and BERTSCOPE_HOME (a raw OSError)"),
]


# -- encoder: the staging folder of a killed export ---------------------------------------------
def _killed_export(ws) -> str:
    """A real builder killed with SIGKILL mid-build, then `build_once` of the same target."""
    import signal
    import subprocess
    import sys
    import time

    from common.publish import build_once, leftovers

    from .probe import REPO

    target, started = ws.root / "exports" / "minilm-openvino", ws.root / "exports" / "started"
    target.parent.mkdir(parents=True, exist_ok=True)
    code = ("import pathlib, sys, time; from common.publish import build_once\n"
            "t, s = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])\n"
            "def build(d):\n    (d / 'model.bin').write_bytes(b'x' * 2**20); s.touch(); "
            "time.sleep(60)\n"
            "build_once(t, lambda: 'absent', build)\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(target), str(started)],
                             cwd=str(REPO))
    deadline = time.monotonic() + 60
    while not started.exists():
        assert time.monotonic() < deadline and child.poll() is None, "the builder never started"
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    left = leftovers(target)
    assert len(left) == 1, left
    build_once(target, lambda: None if target.exists() else "absent",
               lambda d: (d / "model.bin").write_bytes(b"y"))
    assert not leftovers(target) and target.exists()
    return f"{left[0].name} (1 MB, left by the killed build) removed; the export built"


ENCODER = [
    Case("encoder library", "an export whose build was killed with kill -9, built again",
         call(_killed_export), "accepted",
         "the hidden staging folder is removed (914 MB and 465 MB were left for good)"),
]


# -- the Training page ----------------------------------------------------------------------------
@contextmanager
def _home(folder: Path):
    """`BERTSCOPE_HOME` pointed at `folder` for one case (its uploads and jobs stay there)."""
    before = os.environ.get("BERTSCOPE_HOME")
    os.environ["BERTSCOPE_HOME"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("BERTSCOPE_HOME", None)
        else:
            os.environ["BERTSCOPE_HOME"] = before


def _training(steps: Callable, home: Callable[[Path], Path]) -> Callable[..., Outcome]:
    from .cases_app import PAGES, page

    PAGES.setdefault("training", "pages/7_Training.py")

    def run(ws) -> Outcome:
        with _home(home(ws.root)):
            return page("training", steps)(ws)

    return run


def _upload(name: str, data: bytes):
    def steps(at, ws):
        at.radio(key="train-source").set_value("Upload a data file").run()
        at.get("file_uploader")[0].upload(name, data).run()

    return steps


def _page(bad: str, steps, home=lambda root: root / "home-training", expect: str = "refused",
          note: str = "") -> Case:
    return Case("app (Streamlit pages)", f"Training: {bad}", _training(steps, home), expect,
                note)


APP = [
    _page("an upload that is a JSON array (.json)",
          _upload("pairs.json", json.dumps(ROWS).encode()),
          note="says JSON array and how to convert it (it said: needs a 'sentence1' column)"),
    _page("an upload in UTF-16", _upload("pairs.jsonl", LINES.encode("utf-16"))),
    _page("a gzip upload named .jsonl", _upload("pairs.jsonl", gzip.compress(LINES.encode()))),
    _page("a CSV upload with only its header",
          _upload("pairs.csv", b"sentence1,sentence2,score\n")),
    _page("an upload with a 300-character name", _upload("p" * 300 + ".jsonl", LINES.encode()),
          expect="accepted", note="kept under its first 120 characters (it was a raw 'File "
                                  "name too long')"),
    _page("Start with a jobs folder that cannot be written",
          lambda at, ws: _start_read_only(at, ws),
          note="the JobError's sentence (a raw OSError)"),
    _page("damaged job records beside a healthy one", lambda at, ws: None,
          home=lambda root: _jobs_home(root), note="the newest fit job shows as failed, naming "
                                                   "its damaged record; the page draws (it "
                                                   "showed only an exception)"),
]


def _start_read_only(at, ws):
    """Upload a good file, then press Start while the jobs folder is mounted read-only."""
    from .small_disk import NoSmallDisk, read_only

    _upload("good.jsonl", LINES.encode())(at, ws)
    jobs = ws.root / "home-training" / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    try:
        with read_only(jobs):
            at.button(key="train-start").click().run()
    except NoSmallDisk as exc:
        return Outcome("not tried", f"cannot make a folder read-only here: {exc}",
                       traceback=True)
    return None


def _jobs_home(root: Path) -> Path:
    home = root / "home-jobs"
    _plant_jobs(home / "jobs")
    return home
