"""A normal install works: the wheel built from this checkout holds every module of the tree,
the app's scripts and the recipes, and installed (not editable) into a fresh venv it gives the
`bertscope` command and every package, imported from outside the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PRODUCT = ("bertscope", "common", "encoder", "indexer", "metrics", "training", "service", "rag")


def tracked(pattern: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", pattern], cwd=REPO, capture_output=True, text=True)
    return out.stdout.split() if out.returncode == 0 else []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    work = tmp_path_factory.mktemp("src")  # a copy: the build must not leave build/ in the tree
    subprocess.run(["git", "worktree", "list"], cwd=REPO, check=False, capture_output=True)
    files = [f for f in tracked(".") if (REPO / f).is_file()]
    for f in files:
        (work / f).parent.mkdir(parents=True, exist_ok=True)
        (work / f).write_bytes((REPO / f).read_bytes())
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                           "--no-build-isolation", "-q", "-w", str(out), str(work)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return next(out.glob("bertscope-*.whl"))


@pytest.mark.slow
def test_the_wheel_holds_every_module_of_the_tree(wheel):
    if not tracked("."):
        pytest.skip("not a git checkout: nothing to compare the wheel with")
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = [f for f in tracked("*.py") if f.split("/")[0] in PRODUCT]
    modules += [f.removeprefix("app/") for f in tracked("app/appkit/*.py")
                + tracked("app/charts/*.py")]
    missing = [m for m in modules if m not in names]
    assert not missing, f"pyproject.toml leaves out {missing[:5]}"
    data = {n.split(".data/data/", 1)[1] for n in names if ".data/data/" in n}
    shipped = ([f"share/bertscope/{f}" for f in tracked("app/pages/*.py") + ["app/Home.py"]]
               + [f"share/bertscope/{f}" for f in tracked("recipes/*.json")])
    assert set(shipped) <= data, sorted(set(shipped) - data)
    assert any(n.endswith("licenses/LICENSE") for n in names)


@pytest.mark.slow
def test_the_installed_wheel_runs_outside_the_checkout(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    # the dependencies are this venv's (the wheel declares them; installing them offline would
    # take minutes): a plain path line, so this venv's editable checkout stays out of reach
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HF_HUB_OFFLINE"] = "1"

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)

    helped = run(str(venv / "bin" / "bertscope"), "index", "--help")
    assert helped.returncode == 0 and "build" in helped.stdout, helped.stderr[-1500:]
    where = run(str(py), "-c", "import indexer.milvus, common.jobs, service, rag, appkit, "
                "charts, bertscope.cli as c, training.run_plan as r; print(indexer.__file__); "
                "print(c.app_script()); print(r.RECIPES)")
    assert where.returncode == 0, where.stderr[-1500:]
    module, app, recipes = where.stdout.split()
    assert Path(module).is_relative_to(venv) and Path(app).is_relative_to(venv), where.stdout
    assert Path(app).name == "Home.py" and (Path(app).parent / "pages" / "1_Search.py").exists()
    assert sorted(p.name for p in Path(recipes).glob("*.json")) == \
        sorted(Path(f).name for f in tracked("recipes/*.json"))
