"""Minimum heap: bisection with repeated probes at the boundary against a plain linear scan
at the same fine step, on the same real workload. Targets: the same answer within one step,
at most a third of the invocations; five independent bisections give overlapping intervals.

    .venv/bin/python bench/minheap.py                    # hold (64 MB live), Serial, JDK 17
    .venv/bin/python bench/minheap.py --gc G1 --repeats 3 --runs 5

The linear scan probes lower, lower + step, ... once each and answers with the first size
that passes (what a hand search does). The bisection is `jvmlab minheap` (the library call).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk import discover, select
from jvmlab.plan.prepare import prepare
from jvmlab.sizing.minheap import MinHeapSettings, Status, find_min_heap
from jvmlab.sizing.probe import JvmProbe
from jvmlab.spec.load import parse_spec

MB = 1 << 20
SPEC = '''[workload]
builtin = "hold"
args = ["--live-mb", "{live}", "--alloc-mb", "{alloc}"]
[jvms]
j = "{home}"
[factors.gc]
{gc} = "-XX:+Use{gc}GC"
'''


def make_probe(args: argparse.Namespace, folder: Path) -> JvmProbe:
    home = select(args.jdk, discover()).home
    text = SPEC.format(live=args.live_mb, alloc=args.alloc_mb, home=home, gc=args.gc)
    plan = prepare(parse_spec(text), text, None)
    return JvmProbe(plan.cells[0], LocalExecutor(), timeout_s=120.0, artifacts_dir=folder)


def linear_scan(probe: JvmProbe, lower: int, upper: int, step: int) -> tuple[int | None, int]:
    runs = 0
    for size in range(lower, upper + 1, step):
        runs += 1
        if probe(size).verdict.passed:
            return size, runs
    return None, runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jdk", default="17")
    parser.add_argument("--gc", default="Serial")
    parser.add_argument("--live-mb", type=int, default=64)
    parser.add_argument("--alloc-mb", type=int, default=128)
    parser.add_argument("--lower-mb", type=int, default=8)
    parser.add_argument("--upper-mb", type=int, default=512)
    parser.add_argument("--step-mb", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    step = args.step_mb * MB
    settings = MinHeapSettings(args.lower_mb * MB, args.upper_mb * MB, step, args.repeats)
    with tempfile.TemporaryDirectory(prefix="jvmlab-bench-minheap-") as tmp:
        probe = make_probe(args, Path(tmp))
        t0 = time.monotonic()
        linear, linear_runs = linear_scan(probe, settings.lower_bytes, settings.upper_bytes, step)
        linear_s = time.monotonic() - t0
        results = []
        for i in range(args.runs):
            t0 = time.monotonic()
            results.append((find_min_heap(make_probe(args, Path(tmp) / f"b{i}"), settings), time.monotonic() - t0))
    print(f"workload hold --live-mb {args.live_mb} --alloc-mb {args.alloc_mb}, {args.gc}, JDK {args.jdk}; "
          f"bounds {args.lower_mb}-{args.upper_mb} MiB, step {args.step_mb} MiB, repeats {args.repeats}")
    print(f"{'method':<14}{'answer':>22}{'invocations':>13}{'seconds':>10}")
    print(f"{'linear scan':<14}{_mib(linear):>22}{linear_runs:>13}{linear_s:>10.1f}")
    for i, (r, secs) in enumerate(results):
        answer = f"({_mib(r.lower_bytes)}, {_mib(r.upper_bytes)}]" if r.status is Status.FOUND else str(r.status)
        flaky = " flaky" if r.flaky else ""
        print(f"{f'bisection {i + 1}':<14}{answer + flaky:>22}{r.invocations:>13}{secs:>10.1f}")
    found = [r for r, _ in results if r.status is Status.FOUND]
    first = results[0][0]
    same = linear is not None and first.upper_bytes is not None and abs(first.upper_bytes - linear) <= step
    ratio = first.invocations / linear_runs if linear_runs else float("nan")
    overlap = len(found) == len(results) and max(r.lower_bytes for r in found) < min(r.upper_bytes for r in found)
    print(f"same answer within one step (bisection 1 vs linear): {'yes' if same else 'NO'}")
    print(f"invocations, bisection 1 / linear: {first.invocations}/{linear_runs} = {ratio:.2f} "
          f"({'<=' if ratio <= 1 / 3 else '>'} 1/3 target)")
    mean_inv = sum(r.invocations for r, _ in results) / len(results)
    print(f"mean bisection invocations over {len(results)} runs: {mean_inv:.1f} "
          f"({mean_inv / linear_runs:.2f} of linear)")
    print(f"{len(results)} independent intervals overlap: {'yes' if overlap else 'NO'}"
          + (f" (common part ({_mib(max(r.lower_bytes for r in found))}, {_mib(min(r.upper_bytes for r in found))}])"
             if overlap else ""))
    return 0 if same and overlap and ratio <= 1 / 3 else 1


def _mib(n: int | None) -> str:
    return "-" if n is None else f"{n / MB:g} MiB"


if __name__ == "__main__":
    sys.exit(main())
