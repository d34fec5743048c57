"""Observer effect of the collectors: the same throughput workload with all collectors on
vs off, interleaved (ABAB...) in one run, printing the throughput ratio.

    .venv/bin/python bench/observer_effect.py [--jdk HOME] [--pairs 20] [--seconds 5]
                                              [--interval-ms 100] [--threads 2]

The workload is the built-in ``chunkgen`` (allocation-heavy, multi-threaded); its own
metric ``chunks_per_s`` is the throughput. "on" means every collector of
``build_collectors`` with default settings (GC log, /proc sampler, progress, workload
metrics, flag effect); "off" means no probe at all. Target: on/off within 1 %, printed with
the spread of the pair ratios (sd, and the 95 % t-interval of their mean).

What the collectors cost on such a run, and what was done about it: the GC log's lines
(a dozen per young GC at gc*=info, plus safepoints) are written asynchronously on JDK 17+
(``-Xlog:async``), not inside the pause; the /proc sampler reads one ``stat`` per thread and
``statm`` per sample (about 0.5 ms), ``smaps_rollup`` within a 0.5 % CPU budget, and its
interval stretches on runs longer than 10 s; the child's launch and reap happen in the launch
helper, not in a Python thread (see docs/collectors.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from chunkgen_rate import chunks_per_s
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk.identify import identify
from jvmlab.model.collected import Collected
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import InvocationPlan
from jvmlab.workloads.builtin import prepare_builtin

FLAGS = ["-Xms512m", "-Xmx512m", "-XX:+UseG1GC"]


def run_once(java_argv: list[str], tail: list[str], ctx: ProbeContext, collectors_on: bool,
             interval_ms: int, progress_regex: str | None) -> tuple[float, float, Collected]:
    """(chunks per second, CPU seconds this Python process spent, collected data) of one run."""
    collectors = build_collectors(CollectSettings(proc_interval_ms=interval_ms), progress_regex) \
        if collectors_on else []
    probes = [c.probe(ctx) for c in collectors]
    argv = [*java_argv, *FLAGS, *(a for p in probes for a in p.jvm_args()), *tail]
    plan = InvocationPlan(argv=tuple(argv), env={"PATH": "/usr/bin:/bin"}, cwd=ctx.artifacts_dir,
                          timeout_s=600, artifacts_dir=ctx.artifacts_dir)
    cpu0 = time.process_time()
    result = LocalExecutor().run(plan, probes)
    collected = Collected()
    for probe in probes:
        collected.merge(probe.finish(result))
    cpu_s = time.process_time() - cpu0
    if result.status != "ok":
        sys.exit(f"run failed: {result.reason}")
    rate = chunks_per_s(result)
    return rate, cpu_s, collected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--interval-ms", type=int, default=100)
    args = parser.parse_args()
    jdk = identify(args.jdk)
    built = prepare_builtin("chunkgen", jdk)
    tail = ["-cp", str(built.classpath), built.main_class, "--threads", str(args.threads),
            "--seconds", str(args.seconds), "--retain-mb", "64", "--chunk-kb", "64"]
    rates: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="jvmlab-observer-") as tmp:
        run_once([str(jdk.java)], tail, _ctx(jdk, Path(tmp) / "warm"), False, args.interval_ms, None)  # warm caches
        for pair in range(args.pairs):
            for on in (True, False):
                ctx = _ctx(jdk, Path(tmp) / f"p{pair}-{'on' if on else 'off'}")
                rate, cpu_s, collected = run_once([str(jdk.java)], tail, ctx, on, args.interval_ms,
                                                  built.progress_regex)
                rates[on].append(rate)
                cpu[on].append(cpu_s)
                extra = f" samples={len(collected.timelines['mem.rss_bytes'].t_s)}" if on and \
                    "mem.rss_bytes" in collected.timelines else ""
                print(f"pair {pair + 1} {'on ' if on else 'off'}: {rate:10.1f} chunks/s  "
                      f"jvmlab cpu {cpu_s:.3f} s{extra}", flush=True)
    ratios = [a / b for a, b in zip(rates[True], rates[False], strict=False)]
    print()
    print(f"JDK {jdk.version}, chunkgen {args.threads} threads x {args.seconds:g} s, "
          f"/proc interval {args.interval_ms} ms, {args.pairs} pairs interleaved")
    print(f"throughput on : mean {statistics.mean(rates[True]):.1f} chunks/s "
          f"(sd {statistics.stdev(rates[True]) if args.pairs > 1 else 0:.1f})")
    print(f"throughput off: mean {statistics.mean(rates[False]):.1f} chunks/s "
          f"(sd {statistics.stdev(rates[False]) if args.pairs > 1 else 0:.1f})")
    print(f"ratio on/off (mean of pairs): {statistics.mean(ratios):.4f}  "
          f"median {statistics.median(ratios):.4f}  range {min(ratios):.4f}..{max(ratios):.4f}")
    if len(ratios) > 1:
        from scipy import stats

        sd = statistics.stdev(ratios)
        half = stats.t.ppf(0.975, len(ratios) - 1) * sd / len(ratios) ** 0.5
        mean = statistics.mean(ratios)
        verdict = "PASS" if mean - half >= 0.99 else ("FAIL" if mean + half < 0.99 else "UNDECIDED")
        print(f"spread of the pair ratios: sd {sd:.4f}; "
              f"95% t-interval of the mean {mean - half:.4f}..{mean + half:.4f}")
        print(f"{verdict}  target: collectors cost at most 1% (interval above 0.99; UNDECIDED: "
              f"the interval straddles it, more pairs or a quieter machine)")
    print(f"jvmlab process CPU per run: on {statistics.mean(cpu[True]):.3f} s, "
          f"off {statistics.mean(cpu[False]):.3f} s")


def _ctx(jdk, folder: Path) -> ProbeContext:  # type: ignore[no-untyped-def]
    folder.mkdir(parents=True, exist_ok=True)
    return ProbeContext(jdk=jdk, cell_name="bench", flags=tuple(FLAGS), artifacts_dir=folder)


if __name__ == "__main__":
    main()
