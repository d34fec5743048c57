"""Observer effect of the jfr collector: the same workload with JFR on and off, interleaved
in one run (off, on-default, on-profile, ... rotated per round), printing throughput ratios.

    .venv/bin/python bench/jfr_overhead.py [--jdk HOME] [--rounds 4] [--seconds 8]
                                           [--threads 2] [--settings default,profile]

The workload is the built-in ``chunkgen`` (allocation-heavy, multi-threaded); its own
metric ``chunks_per_s`` (timed inside ``main``, so JFR's startup cost is not in it) is the
throughput. "on" is :class:`jvmlab.collect.jfr.JfrCollector` alone with a settings
profile; "off" has no probe. Target: at most 2 % lower throughput with ``default``; the
``profile`` figure is printed for the docs. Also printed: the recording's size and the
time ``jfr print --json`` took to read it (after the run, outside the measurement), and the
JVM startup cost of JFR (wall time of the whole invocation, on - off).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from chunkgen_rate import chunks_per_s
from jvmlab.collect.base import Collected, ProbeContext
from jvmlab.collect.jfr import RECORDING, JfrCollector
from jvmlab.execute.local import LocalExecutor
from jvmlab.execute.records import InvocationPlan
from jvmlab.jdk.identify import identify
from jvmlab.workloads.builtin import prepare_builtin

FLAGS = ["-Xms512m", "-Xmx512m", "-XX:+UseG1GC"]


def run_once(java: str, tail: list[str], folder: Path, jdk, settings: str | None
             ) -> tuple[float, float, float, int]:  # type: ignore[no-untyped-def]
    """(chunks per second, invocation wall s, parse s, recording bytes) of one run."""
    folder.mkdir(parents=True, exist_ok=True)
    ctx = ProbeContext(jdk=jdk, cell_name="bench", flags=tuple(FLAGS), artifacts_dir=folder)
    probes = [JfrCollector(settings).probe(ctx)] if settings else []
    argv = [java, *FLAGS, *(a for p in probes for a in p.jvm_args()), *tail]
    plan = InvocationPlan(argv=tuple(argv), env={"PATH": "/usr/bin:/bin"}, cwd=folder, timeout_s=600,
                          artifacts_dir=folder)
    result = LocalExecutor().run(plan, probes)
    size = (folder / RECORDING).stat().st_size if (folder / RECORDING).is_file() else 0
    t0 = time.perf_counter()
    collected = Collected()
    for probe in probes:
        collected.merge(probe.finish(result))
    parse_s = time.perf_counter() - t0
    if result.status != "ok":
        sys.exit(f"run failed: {result.reason}")
    if settings and "error" in collected.documents.get("jfr", {}):
        sys.exit(f"jfr unusable: {collected.documents['jfr']['error']}")
    rate = chunks_per_s(result)
    wall = result.measures.wall_s if result.measures else float("nan")
    return rate, wall, parse_s, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--settings", default="default,profile")
    args = parser.parse_args()
    jdk = identify(args.jdk)
    built = prepare_builtin("chunkgen", jdk)
    tail = ["-cp", str(built.classpath), built.main_class, "--threads", str(args.threads),
            "--seconds", str(args.seconds), "--retain-mb", "64", "--chunk-kb", "64"]
    arms: list[str | None] = [None, *args.settings.split(",")]
    rates: dict[str | None, list[float]] = {a: [] for a in arms}
    walls: dict[str | None, list[float]] = {a: [] for a in arms}
    parse: dict[str | None, list[tuple[float, int]]] = {a: [] for a in arms}
    with tempfile.TemporaryDirectory(prefix="jvmlab-jfr-overhead-") as tmp:
        run_once(str(jdk.java), tail, Path(tmp) / "warm", jdk, None)  # warm the page cache
        for rnd in range(args.rounds):
            order = arms[rnd % len(arms):] + arms[:rnd % len(arms)]  # rotate: no arm always first
            for arm in order:
                rate, wall, parse_s, size = run_once(str(jdk.java), tail, Path(tmp) / f"r{rnd}-{arm}", jdk, arm)
                rates[arm].append(rate)
                walls[arm].append(wall)
                parse[arm].append((parse_s, size))
                print(f"round {rnd + 1} {arm or 'off':8}: {rate:10.1f} chunks/s  wall {wall:.2f} s"
                      + (f"  recording {size / 1024:.0f} KiB, read in {parse_s:.2f} s" if arm else ""), flush=True)
    print(f"\nJDK {jdk.version}, chunkgen {args.threads} threads x {args.seconds:g} s, {args.rounds} rounds "
          f"interleaved (rotated order)")
    off = statistics.mean(rates[None])
    print(f"off            : mean {off:.1f} chunks/s")
    for arm in arms[1:]:
        ratios = [a / b for a, b in zip(rates[arm], rates[None], strict=False)]
        startup = statistics.mean(walls[arm]) - statistics.mean(walls[None])
        print(f"jfr {arm:11}: mean {statistics.mean(rates[arm]):.1f} chunks/s; ratio of means "
              f"{statistics.mean(rates[arm]) / off:.4f}; ratio on/off per round: mean "
              f"{statistics.mean(ratios):.4f} median {statistics.median(ratios):.4f} range "
              f"{min(ratios):.4f}..{max(ratios):.4f}; wall +{startup:.2f} s per invocation; "
              f"jfr print {statistics.mean(p for p, _ in parse[arm]):.2f} s for "
              f"{statistics.mean(s for _, s in parse[arm]) / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
