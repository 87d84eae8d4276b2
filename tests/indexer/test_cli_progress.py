"""The CLI's progress bars: the rate counts only chunks encoded while the bar is shown (the first
report already carries a batch, and a resumed build's shards come back from disk in an instant),
so the first tick shows no rate instead of an absurd one."""

from __future__ import annotations

from indexer.build import BuildProgress
from indexer.cli_progress import ChunkBar, StageBar


def encode(done: int, chunks: int, resumed: int = 0) -> BuildProgress:
    return BuildProgress("encode", done, 100, 0.0, None, resumed, chunks, 1000)


def test_first_tick_has_no_rate():
    bar = StageBar()
    bar(encode(5, 64))  # the first report comes after a batch of 64 chunks
    assert bar.bar.initial == 64 and bar.bar.n == 64
    assert "?chunk/s" in str(bar.bar)  # was 64 chunks over ~0 s: hundreds of thousands a second
    bar(encode(9, 128))
    assert bar.bar.initial == 64 and bar.bar.n == 128  # this run's chunks count from here


def test_resumed_shards_are_not_counted_as_speed():
    bar = StageBar()
    bar(encode(10, 200, resumed=10))  # shards read back from an interrupted build
    bar(encode(20, 400, resumed=20))
    assert bar.bar.initial == 400 and "?chunk/s" in str(bar.bar)
    bar(encode(25, 464, resumed=20))  # encoded now
    assert bar.bar.initial == 400 and bar.bar.n == 464


def test_chunk_bar_starts_at_its_first_report():
    bar = ChunkBar()
    bar(32, 100)
    assert bar.bar.initial == 32 and "?chunk/s" in str(bar.bar)
    bar(100, 100)  # closes at the end
    assert bar.bar.n == 100


def test_loading_the_model_is_a_phase_of_its_own_with_no_false_estimate(tmp_path, monkeypatch,
                                                                        capsys):
    """The model loads (a first use exports it: minutes) after the corpus is read: the job's bar
    says so, empty and with no estimate, instead of sitting full at "read: 1 of 1 · about 0 s
    left" (issue 42: five minutes so, during the Chinese default index's export)."""
    from common.jobs import progress_text, read_progress

    monkeypatch.setenv("BERTSCOPE_JOB_PROGRESS", str(tmp_path / "progress.json"))
    bar = StageBar()
    bar(BuildProgress("read", 1, 1))
    bar(BuildProgress("load", 0, 0))
    p = read_progress(tmp_path / "progress.json")
    assert p.phase == "loading the model (a first use exports it)"
    assert p.total is None and p.fraction == 0.0 and p.eta_s is None
    assert progress_text(p, now=p.at + 150) == (
        "loading the model (a first use exports it): under way for 2.5 min, no estimate")
    assert "loading the model (its first use here exports it" in capsys.readouterr().err
