"""Shared fixtures: a tiny random BERT for speed, the real bundled models loaded once."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from pathlib import Path

import pytest
from cli_runner import run_cli  # noqa: F401  (the fixture every CLI test runs commands with)

from bench.kit.tiny_model import build_tiny_model

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One thread per process the tests start (Streamlit servers, jobs, CLIs; torch, FAISS and the
# exports' runtimes read it): the xdist workers already keep every core busy, and more
# threads only spin against each other (this process: the `one_torch_thread` fixture below).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# `auto` picks int8 first on a CPU with VNNI and fp32 ONNX on one with AVX2 only: pin what it
# reads, here and in every process the tests start, so results do not depend on the machine.
# Tests of the int8 path name that backend or inject the flags themselves.
os.environ.setdefault("BERTSCOPE_CPU_FLAGS", "avx avx2")

REPO = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    """`$BERTSCOPE_DATA`, default `../shared/data` beside the repository."""
    from common.home import data_root

    return data_root()


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """One torch thread: on a shared 2-core machine more threads spin against each other and
    make small models many times slower (measured: a tiny BERT query 12 ms vs 356 ms)."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


QUICK_LANE_MARKS = ("slow", "browser", "training")  # `make test-fast` deselects these
_running: dict[str, pytest.Item | None] = {"item": None}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _running["item"] = item  # before its fixtures are set up: a session fixture counts too


@pytest.fixture(scope="session", autouse=True)
def quick_tests_load_no_bundled_model():
    """A test outside the slow lanes that loads a bundled model (or converts e5), itself or
    through a fixture it is first to ask for, fails and says to mark it: `make test-fast` loads
    none (seconds each, a minute for e5's conversion)."""
    from encoder import registry

    originals = dict(registry.BUNDLED)

    def guarded(name: str, resolve):
        def load():
            item = _running["item"]
            if item is not None and not any(item.get_closest_marker(m)
                                            for m in QUICK_LANE_MARKS):
                pytest.fail(f"{item.nodeid} loads the bundled model {name!r}: mark it "
                            "@pytest.mark.slow (the quick lane loads no bundled model)")
            return resolve()
        return load

    for name, model in originals.items():
        registry.BUNDLED[name] = dataclasses.replace(model, resolve=guarded(name, model.resolve))
    yield
    registry.BUNDLED.update(originals)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if not path.is_dir():
        pytest.skip(f"shared data sets not found at {path} (set BERTSCOPE_DATA)")
    return path


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="session")
def other_model_dir(tmp_path_factory) -> Path:
    """A second tiny random BERT: another fingerprint, width (48) and window (48 tokens), for
    re-indexing and two-model views."""
    return build_tiny_model(tmp_path_factory.mktemp("other"), layers=3, hidden=48,
                            max_seq_length=48)


@pytest.fixture(scope="session")
def tiny_encoder(tiny_model_dir):
    from encoder import load_encoder

    return load_encoder(tiny_model_dir)


@pytest.fixture(scope="session")
def tiny_torch(tiny_model_dir):
    """The tiny model on the torch backend (what `backend_stub.labelled` dresses up)."""
    from encoder import load_encoder

    return load_encoder(tiny_model_dir, backend="torch")


@pytest.fixture(scope="session")
def minilm():
    from encoder import load_encoder

    return load_encoder("minilm")


@pytest.fixture(scope="session")
def e5():
    from encoder import load_encoder

    return load_encoder("e5-multilingual")


# Browser files that start a Streamlit server of their own (their own home, jobs and roots):
# each is a group of its own, so they run beside the shared server's group, not after it.
OWN_SERVER_FILES = ("test_browser_training.py", "test_browser_head_jobs.py")
FIRST_GROUPS = ("browser", *(f"browser:{name}" for name in OWN_SERVER_FILES), "ray")


def worker_group(nodeid: str) -> str:
    """Which tests `make test` keeps on one pytest-xdist worker: the real-browser tests on the
    shared server (files named *browser*: one Streamlit server, one default index), each
    browser file with a server of its own, the Ray tests (files test_ray*: one Ray at a time),
    and otherwise each file (its module fixtures are set up once). The browser group alone
    took 993 s of a 1,039 s run when the own-server files were in it."""
    path = nodeid.split("::")[0]
    name = Path(path).name
    if name in OWN_SERVER_FILES:
        return f"browser:{name}"
    if "browser" in name:
        return "browser"
    if name.startswith("test_ray"):
        return "ray"
    return path


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The browser group is found by file name: a browser test elsewhere would run beside it."""
    for item in items:
        if item.get_closest_marker("browser") and not worker_group(item.nodeid).startswith(
                "browser"):
            raise pytest.UsageError(f"{item.nodeid} is marked browser: put it in a file whose "
                                    "name says browser (tests/conftest.py: worker_group)")


if importlib.util.find_spec("xdist"):
    def pytest_xdist_make_scheduler(config, log):
        """Schedule by `worker_group` (xdist's own `loadgroup` cannot mark groups under
        pytest 9: it rewrites `item._nodeid`, which pytest 9 no longer reads)."""
        from xdist.scheduler import LoadScopeScheduling

        class ByWorkerGroup(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return worker_group(nodeid)

            def _assign_work_unit(self, node) -> None:
                """The longest groups first: browser (minutes: a server, an index, Chromium),
                the browser files with servers of their own, then Ray. xdist orders groups by
                their number of tests, which put these behind files of many quick tests; the
                rest keep that order."""
                for group in reversed(FIRST_GROUPS):
                    if group in self.workqueue:
                        self.workqueue.move_to_end(group, last=False)
                super()._assign_work_unit(node)

        return ByWorkerGroup(config, log)
