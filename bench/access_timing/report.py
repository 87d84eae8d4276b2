"""The timing bench's analysis and its table (bench/results/access_timing.md): each contrast of
two kinds of query per caller, clock and endpoint, and the round-by-round shifts that tell a
hidden match from the twin index's size. The kinds are `bench.access_timing`'s."""

from __future__ import annotations

import numpy as np

from bench.kit.timing_stats import compare, detectable_auc, median_difference, two_sample_p

ENDPOINTS = ("lexical", "dense", "hybrid", "context")
KINDS = {"a": "a hidden document's words", "b": "a visible document's words",
         "c": "(a)'s words, twin index without the hidden documents",
         "d": "a never-indexed document's words", "e": "(d)'s words, twin index"}
TWIN = ("c", "e")  # the kinds sent to the twin
CONTRASTS = (("a", "c"), ("a", "d"), ("a", "b"), ("d", "e"))
CALLERS = {("http", "wall"): "outsider over HTTP, client's clock",
           ("http", "server"): "outsider over HTTP, the answer's `timings.search_ms`",
           ("in-process", "wall"): "principal-less reader (`readers=[]`) in-process, the "
                                           "search alone"}


def analyse(samples: dict) -> tuple[list[dict], list[dict]]:
    """One row per caller, clock, endpoint and contrast (`compare` of the two kinds' times),
    and one per caller, clock and endpoint comparing the round-by-round shifts (a) - (c) and
    (d) - (e): a hidden match's own cost beside the twin's size."""
    rows, shifts = [], []
    for caller, clock in CALLERS:
        for endpoint in ENDPOINTS:
            times = {k: samples[(caller, endpoint, k)][clock] for k in KINDS}
            for x, y in CONTRASTS:
                rows.append({"caller": caller, "clock": clock, "endpoint": endpoint,
                             "contrast": f"({x}) vs ({y})", **compare(times[x], times[y]),
                             **{f"p50_{k}": float(np.median(v)) for k, v in times.items()},
                             **{f"p95_{k}": float(np.quantile(v, 0.95))
                                for k, v in times.items()}})
            hit, size = (np.subtract(times[x], times[y]) for x, y in (("a", "c"), ("d", "e")))
            test, p = two_sample_p(hit, size)
            diff, lo, hi = median_difference(hit, size)
            shifts.append({"caller": caller, "clock": clock, "endpoint": endpoint,
                           "a_minus_c": float(np.median(hit)),
                           "d_minus_e": float(np.median(size)), "diff_ms": diff,
                           "diff_lo": lo, "diff_hi": hi, "test": test, "p": p})
    return rows, shifts


def table(rows: list[dict], shifts: list[dict], setup: dict) -> str:
    bar = 0.05 / len(rows)
    lines = ["# Timing side channels of per-document access (issue 50)", "",
             f"{setup['docs']:,} SciFact abstracts in a folder index ({setup['preset']}, "
             f"`minilm` on {setup['backend']}, vectors given to the build), {setup['hidden']} "
             f"of them `access: [\"hr\"]`; its twin holds the other "
             f"{setup['docs'] - setup['hidden']:,}. "
             f"Queries of {setup['tokens']} tokens, {setup['hidden']} of each kind: "
             + "; ".join(f"({k}) {v}" for k, v in KINDS.items())
             + f". {setup['reps']} timed calls per cell after {setup['warm']} warm-up rounds, "
             f"every cell once a round in a random order. The outsider is a principal of group "
             f"`sales` with read on `*`, over `python -m service --keys` on localhost, one "
             f"keep-alive connection. Load average (1 min) while timing: min "
             f"{min(setup['load']):.2f}, mean {np.mean(setup['load']):.2f}, max "
             f"{max(setup['load']):.2f}, on {setup['cpus']} CPUs.", "",
             f"Checks: none of the {setup['checked']:,} answers to the outsider and the "
             f"principal-less reader held a hidden document; an `hr` reader's top hit is the "
             f"hidden document its (a) query came from for {setup['hr_finds']['lexical']} of "
             f"{setup['hidden']} queries (lexical) and {setup['hr_finds']['dense']} (dense).", "",
             "## Medians and p95 per kind (ms)", "",
             "| caller, clock | endpoint | (a) p50 | (b) p50 | (c) p50 | (d) p50 | (e) p50 | "
             "(a) p95 | (c) p95 | (d) p95 | (e) p95 |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["contrast"] == "(a) vs (c)":
            lines.append(f"| {CALLERS[(r['caller'], r['clock'])]} | {r['endpoint']} | "
                         + " | ".join(f"{r[f'p50_{k}']:.3f}" for k in KINDS) + " | "
                         + " | ".join(f"{r[f'p95_{k}']:.3f}" for k in "acde") + " |")
    lines += ["", "## Contrasts", "",
              f"Δ: median of (x) minus (y)'s, µs, with its 95 % bootstrap interval; "
              f"P(x>y): the chance that an (x) call is slower than a (y) call (0.5: no "
              f"difference); p: two-sided {rows[0]['test']} test; ✱ where p < 0.05 / "
              f"{len(rows)} (Bonferroni over every row here). Samples to tell: calls of each "
              f"kind an observer needs to see that effect (two-sided U test, α 0.05, power "
              f"0.8); shown for ✱ rows. With {setup['reps']} calls a kind, an effect of "
              f"|P(x>y) - 0.5| under {detectable_auc(setup['reps']):.3f} would go unseen "
              f"4 times in 5.", "",
              "| caller, clock | endpoint | (x) vs (y) | ratio | Δ µs (95 % CI) | P(x>y) | p | "
              "samples to tell |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        seen = r["p"] < bar
        lines.append(f"| {CALLERS[(r['caller'], r['clock'])]} | {r['endpoint']} | "
                     f"{r['contrast']} | {r['ratio']:.3f} | {1000 * r['diff_ms']:+.0f} "
                     f"({1000 * r['diff_lo']:+.0f} to {1000 * r['diff_hi']:+.0f}) | "
                     f"{r['auc']:.3f} | {r['p']:.2g}{' ✱' if seen else ''} | "
                     f"{format(r['samples_to_tell'], ',') if seen else '—'} |")
    lines += ["", "## The hidden match, or the twin's size?", "",
              "Round by round, (a) - (c) (a hidden document matches, against the twin) beside "
              "(d) - (e) (nothing hidden matches, the same two indexes): medians of each, µs, "
              f"their difference with its 95 % bootstrap interval, and a two-sided "
              f"{shifts[0]['test']} test of the two shifts; ✱ where p < 0.05 / {len(shifts)}. "
              "A shift that both show is the index's size; one that (a) - (c) alone shows is "
              "the hidden match.", "",
              "| caller, clock | endpoint | (a) - (c) | (d) - (e) | difference (95 % CI) | p |",
              "|---|---|---:|---:|---:|---:|"]
    for r in shifts:
        lines.append(f"| {CALLERS[(r['caller'], r['clock'])]} | {r['endpoint']} | "
                     f"{1000 * r['a_minus_c']:+.0f} | {1000 * r['d_minus_e']:+.0f} | "
                     f"{1000 * r['diff_ms']:+.0f} ({1000 * r['diff_lo']:+.0f} to "
                     f"{1000 * r['diff_hi']:+.0f}) | {r['p']:.2g}"
                     f"{' ✱' if r['p'] < 0.05 / len(shifts) else ''} |")
    return "\n".join(lines) + "\n"
