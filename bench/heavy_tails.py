"""Coverage of the paired ratio and difference intervals under heavy tails: block bootstrap
(BCa) against the inverted sign-flip test that jvmlab prints, side by side (seeded, no JVM).

    .venv/bin/python bench/heavy_tails.py                 # the grid of issue 11, 400 runs a point
    .venv/bin/python bench/heavy_tails.py --reps 100 --n 8 15

Model and noises: :mod:`jvmlab.analyze.tailsim`. Columns: "printed" is the comparison as
jvmlab prints it (covers, or is marked), with its kind; "BCa" the bootstrap interval
(paired by block from 8 blocks, else unpaired, which is then what is printed); "width" the
median log-width printed / BCa; "mean BCa" and "mean printed" the same for one cell's
interval of its mean (printed: covers, or is marked ``bca-heavy-tail``/``t-small-n``); "diff
printed", "diff BCa" and "diff width" the same three for the paired difference of means
(:mod:`jvmlab.analyze.difference`), its kind after them. Shares below 90% are flagged with
"<". The figures depend only on the seed, not on the machine.
"""

from __future__ import annotations

import argparse
import time

from jvmlab.analyze.smallsample import COVERAGE_FLOOR
from jvmlab.analyze.tailsim import NOISES, Coverage, coverage


def _flag(share: float) -> str:
    return f"{share:.3f}{'<' if share < COVERAGE_FLOOR else ' '}"


def row(c: Coverage) -> str:
    width = "-" if c.width_ratio is None else f"{c.width_ratio:.2f}"
    dwidth = "-" if c.diff_width_ratio is None else f"{c.diff_width_ratio:.2f}"
    return (f"{c.n_blocks:>3} {c.noise:<7} {(c.effect - 1) * 100:>4.0f}%  {_flag(c.printed)} {c.printed_kind:<15} "
            f"{_flag(c.bca)}  {width:>5}  {_flag(c.mean_bca)}  {_flag(c.mean_printed)}     "
            f"{_flag(c.diff_printed)} {_flag(c.diff_bca)}  {dwidth:>5}  {c.diff_kind}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400, help="simulated runs per grid point")
    parser.add_argument("--n", type=int, nargs="+", default=[5, 8, 15, 30], help="blocks per run")
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    start = time.perf_counter()
    print("  n noise   effect printed kind            BCa     width  mean BCa  mean printed  "
          "diff printed/BCa  width  diff kind")
    for n in args.n:
        for kind in NOISES:
            for effect in (1.0, 1.05):
                print(row(coverage(n, kind, effect, args.reps, args.seed)), flush=True)
    print(f"({args.reps} runs per point, seed {args.seed}; {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
