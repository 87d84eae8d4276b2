"""`fit --config RECIPE`: the recipe file gives every setting; flags typed on the command line
override it (`--batch-size 8`, `--max-rows 200`, `--dev FILE`, `--train ... --loss ...`)."""

from __future__ import annotations

import argparse
import dataclasses
import logging

from .checks import check_fit_sets_apart
from .flags import RUN_FLAGS, given_flags, overrides

log = logging.getLogger("bertscope.training")


def run_recipe(args: argparse.Namespace) -> None:
    """Load the recipe (which writes nothing), apply the flags, then write the held-out parts
    it names and train."""
    from .fit import fit
    from .recipe import load_recipe

    flags = given_flags(args)
    recipe = load_recipe(args.config, out=args.out, data=args.data)
    config = dataclasses.replace(recipe.config, **overrides(flags, recipe.config))
    check_fit_sets_apart(config)  # --dev / --train given as flags
    recipe.write_splits()  # the run starts: its held-out parts must exist as files
    changed = sorted(set(flags) - set(RUN_FLAGS))
    log.info("recipe %s (%s)%s", recipe.name, recipe.path,
             f"; flags override: {', '.join('--' + c.replace('_', '-') for c in changed)}"
             if changed else "")
    if recipe.cross_validation is not None:
        from .crossval import run_cross_validation

        summary = run_cross_validation(dataclasses.replace(recipe, config=config),
                                       resume=args.resume)
        print(summary)
        return
    result = fit(config, resume=args.resume)
    m = result.metrics
    print(f"model saved to {result.out} ({m['wall_s']:.0f} s)")
    for role in ("dev", "report"):
        before, after = m.get(f"{role}_before"), m.get(f"{role}_after")
        if before and after:
            for b, a in zip(before["sets"], after["sets"], strict=True):
                print(f"{role} {b['path']}: Spearman x100 {b['spearman']:.2f} before, "
                      f"{a['spearman']:.2f} after")
