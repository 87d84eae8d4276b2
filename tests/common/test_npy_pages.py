"""`read_rows`: a pass over a mapped `.npy` file holds one slice of it in this process, not the
file (its pages are given back as they are read), and gives the rows exactly."""

from __future__ import annotations

import numpy as np

from common.npy import load_npy, read_rows, release_pages


def _resident_kb(path) -> int:
    """Resident KB of this process's mappings of `path` (/proc/self/smaps)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as fh:
        for line in fh:
            if "-" in line.split(" ", 1)[0]:  # a mapping's header line
                inside = line.rstrip().endswith(str(path))
            elif inside and line.startswith("Rss:"):
                total += int(line.split()[1])
    return total


def test_a_pass_with_read_rows_leaves_the_file_out_of_memory(tmp_path):
    rows = np.random.default_rng(0).standard_normal((80_000, 128)).astype(np.float32)  # 40 MB
    path = tmp_path / "v.npy"
    np.save(path, rows)
    mapped = load_npy(path)
    got = np.vstack([read_rows(mapped, i, i + 3_000) for i in range(0, len(rows), 3_000)])
    assert np.array_equal(got, rows)
    # what stays: the pages the kernel maps around the last read (fault-around), a few MB at most
    assert _resident_kb(path) < 4_000
    plain = np.vstack([np.asarray(mapped[i:i + 3_000]) for i in range(0, len(rows), 3_000)])
    assert np.array_equal(plain, rows) and _resident_kb(path) > 36_000  # what it saves
    release_pages(mapped)
    assert _resident_kb(path) < 64
    assert np.array_equal(read_rows(rows, 5, 9), rows[5:9])  # an array in memory: a copy
    release_pages(rows)  # nothing to give back
