"""bench/ a newcomer can find and trust: a package whose scripts run as `python -m bench.NAME`,
with no sys.path edits; results written only through `write_results` (so each carries its stamp),
no machine paths in scripts or results, every script imports and takes `--help`, and
bench/README.md names every script, shared helper (bench/kit/) and result file."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if p.name != "__init__.py")
KITS = sorted(p for p in (BENCH / "kit").glob("*.py") if p.name != "__init__.py")
# names of variables that hold a scratch folder or file (a temp dir, a cache, a log): writes
# to them are work files, not results
SCRATCH = {"work", "tmp", "log"}
WRITE_METHODS = {"write_text", "write_bytes"}
NUMPY_SAVES = {"save", "savez", "savez_compressed", "savetxt"}
# files that write something other than results, and why
NOT_RESULTS = {"encode_worker.py": "its vectors, to the file encode.py names in its temp folder",
               "search_hot_worker.py": "its timings, to the file search_hot.py names in its "
                                       "temp folder",
               "docwriters.py": "the PDF, web, Word and Markdown files ingest benches read, into "
                                "the scratch folders they name"}
MACHINE_PATHS = ("/work/", "quiet.sh", "/root/", "/home/")
IMPORTS_TORCH = {"explain.py", "explain_timing.py"}  # ~15 s to import


def writes_outside_scratch(path: Path) -> list[str]:
    """`file:line` of each call in `path` that writes a file whose path is not built from a
    SCRATCH variable: `.write_text/.write_bytes`, `open(..., "w"/"a"/"x")`, numpy saves."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func, target = node.func, None
        if isinstance(func, ast.Attribute) and func.attr in WRITE_METHODS:
            target = func.value
        elif (isinstance(func, ast.Attribute) and func.attr in NUMPY_SAVES and node.args
              and isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy")):
            target = node.args[0]
        elif isinstance(func, ast.Name) and func.id == "open" and node.args:
            mode = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and set(str(mode.value)) & set("wax"):
                target = node.args[0]
        if target is None:
            continue
        names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if not names & SCRATCH:
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_no_script_writes_result_files_but_through_write_results():
    """The stamp (commit, command, date, CPU) is only in files `write_results` writes."""
    offenders = [w for path in [*SCRIPTS, *KITS]
                 if path.name not in ("benchkit.py", *NOT_RESULTS)
                 for w in writes_outside_scratch(path)]
    assert not offenders, ("write result files with benchkit.write_results (or name the "
                           f"scratch folder one of {sorted(SCRATCH)}): {offenders}")


def test_the_write_check_sees_a_hand_written_result(tmp_path):
    script = tmp_path / "x.py"
    script.write_text("from pathlib import Path\n"
                      "def main(out, work):\n"
                      "    (work / 'texts.json').write_text('[]')\n"
                      "    (out / 'x.md').write_text('# x')\n"
                      "    with open(out / 'x.json', 'w') as fh:\n"
                      "        fh.write('{}')\n"
                      "    np.save(out / 'x.npy', [])\n")
    assert sorted(w.split(":")[1] for w in writes_outside_scratch(script)) == ["4", "5", "7"]


def test_scripts_that_make_results_call_write_results():
    for name in ("encode.py", "fusion.py", "retrieval.py", "scifact_chunked.py", "scifact_cv.py",
                 "search.py", "search_latency.py", "disk.py", "soak.py", "explain_timing.py"):
        assert "write_results(" in (BENCH / name).read_text(encoding="utf-8"), name


@pytest.mark.parametrize("path", [*SCRIPTS, *KITS, *sorted((BENCH / "results").iterdir()),
                                  BENCH / "README.md"], ids=lambda p: p.name)
def test_no_machine_paths(path):
    data = path.read_bytes()  # a plot (PNG) too: its metadata may name a path
    assert not [m for m in MACHINE_PATHS if m.encode() in data], f"{path.relative_to(REPO)}"


@pytest.mark.parametrize("script", [
    pytest.param(p, marks=pytest.mark.slow) if p.name in IMPORTS_TORCH else p for p in SCRIPTS],
    ids=lambda p: p.name)
def test_every_script_imports_and_takes_help(script):
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-m", f"bench.{script.stem}", "--help"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    if "argparse" in script.read_text(encoding="utf-8"):
        assert "usage:" in done.stdout


def test_no_sys_path_edits_in_bench_or_its_tests():
    """The scripts are modules of the `bench` package: `python -m bench.NAME` from the
    repository root finds this checkout's packages and `bench.kit`, with no path edits."""
    edits = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*(\[|\+?=)")
    files = [*SCRIPTS, *KITS, *sorted((REPO / "tests" / "bench").glob("*.py"))]
    found = [f"{p.relative_to(REPO)}:{n}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if edits.search(line)]
    assert not found, found


def test_the_readme_names_every_script_and_result_file():
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in SCRIPTS if f"({p.name})" not in readme]
    missing += [f"kit/{p.name}" for p in KITS if f"(kit/{p.name})" not in readme]
    stems = {re.sub(r"\.(md|json|png)$", "", p.name) for p in (BENCH / "results").iterdir()}
    missing += [s for s in sorted(stems) if f"`{s}." not in readme]
    assert not missing, f"bench/README.md does not say what these are: {missing}"


def test_the_readme_commands_run_from_the_repository_root():
    """Commands are `python -m bench.NAME ...` of a script that is there; none runs a script by
    its path (which would miss `bench.kit`)."""
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    spans = re.findall(r"`([^`]+)`", readme)
    modules = {m for s in spans
               for m in re.findall(r"python -m bench\.([a-z0-9_]+(?:\.[a-z0-9_]+)?)", s)}
    assert modules, "bench/README.md shows no `python -m bench.NAME` command"
    assert not [m for m in modules  # a script, a package (bench/scale/) or a module of one
                if not (BENCH / f"{m.replace('.', '/')}.py").is_file()
                and not (BENCH / m / "__main__.py").is_file()]
    by_path = [s for s in spans if re.search(r"(^|python3? )bench/\w+\.py( |$)", s)]
    assert not by_path, f"run these as `python -m bench.NAME`: {by_path}"


def test_docs_link_to_the_readme():
    doc = REPO / "docs" / "BENCHMARKS.md"
    links = re.findall(r"\]\(([^)]*bench/README\.md)\)", doc.read_text(encoding="utf-8"))
    assert links and all((doc.parent / link).resolve() == BENCH / "README.md" for link in links)
