"""Helpers shared by the benchmarks: data location, medians, the machine, and `write_results`,
the one way a benchmark writes its result files. Every file it writes is stamped with the
commit measured, the command that ran, the UTC date and the CPU (model and the flags that decide
which encoding backends are fast), so a figure can always be traced to what made it."""

from __future__ import annotations

import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "bench" / "results"

# CPU flags that change what runs fast: int8 dot products (VNNI, AMX), bf16, AVX-512
CPU_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_int8")
# environment variables that change a measurement, so the stamped command carries them
STAMPED_ENV = ("HF_HUB_OFFLINE", "OMP_WAIT_POLICY", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
               "BERTSCOPE_CPU_FLAGS")


def data_dir() -> Path:
    from common.home import data_root

    path = data_root()
    if not path.is_dir():
        raise SystemExit(f"shared data not found at {path}; set BERTSCOPE_DATA")
    return path


def median(values: list[float]) -> float:
    return statistics.median(values)


def p50_ms(fn: Callable[[str], object], queries: list[str]) -> float:
    """Median milliseconds of `fn(query)`, one query per call, after 5 warm-up calls."""
    for q in queries[:5]:
        fn(q)
    times = []
    for q in queries:
        start = time.perf_counter()
        fn(q)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def machine(cpuinfo: str | Path = "/proc/cpuinfo") -> dict:
    """The CPU model, its relevant flags (CPU_FLAGS it has), CPU count and Python version."""
    info: dict = {"cpu": platform.processor() or platform.machine(), "cpu_flags": [],
                  "cpus": os.cpu_count(), "python": platform.python_version()}
    try:
        lines = Path(cpuinfo).read_text().splitlines()
        model = next(x for x in lines if x.startswith("model name"))
        flags = set(next(x for x in lines if x.startswith("flags")).split(":", 1)[1].split())
        info["cpu"] = model.split(":", 1)[1].strip()
        info["cpu_flags"] = [f for f in CPU_FLAGS if f in flags]
    except (OSError, StopIteration):
        pass
    return info


def git_commit(repo: Path = REPO) -> str:
    """`git rev-parse --short HEAD`, plus " + uncommitted changes" when tracked files differ."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                                  timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    head = git("rev-parse", "--short", "HEAD")
    if not head:
        return "unknown (not a git checkout)"
    return head + (" + uncommitted changes"
                   if git("status", "--porcelain", "--untracked-files=no") else "")


def portable(arg: str) -> str:
    """A command-line word without this machine's paths: inside the repository relative to it,
    under $BERTSCOPE_HOME / $BERTSCOPE_DATA as those variables, elsewhere only its last part."""
    if "=" in arg and not arg.startswith(("/", "~")):
        key, _, value = arg.partition("=")  # --flag=PATH, NAME=PATH
        return f"{key}={portable(value)}" if value.startswith(("/", "~")) else arg
    if not arg.startswith(("/", "~")):
        return shlex.quote(arg)
    from common.home import bertscope_home, data_root

    path = Path(os.path.abspath(Path(arg).expanduser()))
    for root, name in ((REPO, None), (bertscope_home(create=False), "$BERTSCOPE_HOME"),
                       (data_root(), "$BERTSCOPE_DATA")):
        try:
            rest = path.relative_to(os.path.abspath(root.expanduser()))
        except ValueError:
            continue
        if name is None:
            return shlex.quote(str(rest))
        return name + ("/" + shlex.quote(str(rest)) if str(rest) != "." else "")
    return shlex.quote(f".../{path.name}")


def command(argv: list[str] | None = None) -> str:
    """The command that ran, runnable from the repository root: the environment variables that
    change a measurement, the interpreter, `-m bench.X` and its arguments, no machine paths."""
    argv = list(sys.argv if argv is None else argv)
    script = Path(os.path.abspath(argv[0] if argv else "bench/unknown.py"))
    try:
        module = ".".join(script.relative_to(REPO).with_suffix("").parts)
    except ValueError:
        module = f"bench.{script.stem}"
    python = Path(os.path.abspath(sys.executable))  # not resolved: a venv's python is a link
    try:
        python_text = str(python.relative_to(REPO))
    except ValueError:
        python_text = "python"
    env = [f"{k}={shlex.quote(os.environ[k])}" for k in STAMPED_ENV if k in os.environ]
    return " ".join([*env, python_text, "-m", module, *(portable(a) for a in argv[1:])])


def run_stamp(argv: list[str] | None = None) -> dict:
    """What `write_results` stamps into both files: commit, command, UTC date, CPU."""
    return {"commit": git_commit(), "command": command(argv),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), **machine()}


def stamp_line(s: dict) -> str:
    """The stamp as one markdown line."""
    flags = ", ".join(s.get("cpu_flags") or []) or "none of " + "/".join(CPU_FLAGS)
    return (f"Run: commit `{s.get('commit', '?')}` · {s.get('date', '?')} · "
            f"{s.get('cpu', '?')}, {s.get('cpus', '?')} CPUs (flags: {flags}) · "
            f"`{s.get('command', '?')}`")


def with_stamp_line(table: str, s: dict) -> str:
    """`table` with the stamp line under its title (or first, when it has no `# ` title)."""
    lines = table.splitlines()
    if lines and lines[0].startswith("# "):
        return "\n".join([lines[0], "", stamp_line(s), *lines[1:]]) + "\n"
    return "\n".join([stamp_line(s), "", *lines]) + "\n"


def write_results(name: str, payload: dict, table: str, *, folder: str | Path | None = None,
                  stamp: dict | None = None) -> tuple[Path, Path]:
    """Write `folder/name.json` (`payload` under a "stamp" key) and `folder/name.md` (`table`
    with the stamp line under its title), atomically. `folder`: default RESULTS (bench/results);
    `stamp`: an earlier stamp to keep (re-rendering saved results), else this run's."""
    from common.atomic import write_atomic, write_json_atomic

    out = Path(folder) if folder is not None else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    s = stamp or run_stamp()
    json_path, md_path = out / f"{name}.json", out / f"{name}.md"
    write_json_atomic(json_path, {"stamp": s, **{k: v for k, v in payload.items()
                                                 if k != "stamp"}})
    with write_atomic(md_path, "w", encoding="utf-8") as fh:
        fh.write(with_stamp_line(table, s))
    return json_path, md_path
