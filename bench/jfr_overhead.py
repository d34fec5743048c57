"""Observer effect of the jfr collector: the same workload with JFR off and with JFR arms,
interleaved in one run, compared in pairs, with a 95 % interval and a verdict against the
target (at most 2 % throughput lost with the ``default`` profile).

    .venv/bin/python bench/jfr_overhead.py [--jdk HOME] [--arms default] [--minutes 8]
        [--rounds 40] [--seconds 12] [--skip-s 4] [--threads 2] [--retain-mb 64]

The workload is the built-in ``chunkgen`` (allocation-heavy, multi-threaded: a pessimistic
case for JFR, whose allocation sampling hooks the allocation slow path). Throughput is its
steady-state rate: chunks per second from its per-second progress lines after ``--skip-s``
seconds (JFR's own warm-up, its classes and their JIT, is not in it) up to the last full
second but one; the JVM's start and the dump at exit are not in it either.

Pairing: every round runs "off" and every arm once, in an order rotated per round (with one
arm: off-on, on-off, ...), so each arm has an "off" run of the same round next to it. Many
short rounds beat few long ones: the spread between rounds (the machine's other work) is
what the interval has to average out. Rounds go on until ``--minutes`` are spent (at least 2
rounds) or ``--rounds`` are done. The figure per arm is the geometric mean of the per-round
ratios arm/off with a Student-t 95 % interval over rounds (the rounds' log ratios are the
sample). Verdict against 2 %: PASS when the interval's low end is at or above 0.98, FAIL
when its high end is below 0.98, UNDECIDED otherwise.

Printed per arm: the throughput ratio (the target's measure), the CPU per chunk ratio off/on
of the process and of its worker threads alone (what a saturated machine would see; far less
moved by other load), CPU ms per second by thread group, the wall time per invocation and the
dump at exit, and (first round) the recording's events per second by type (``jfr summary``).
Arms: see :data:`jfr_arms.ARMS` (``--arms list`` prints them).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scipy.stats import t as student_t

from chunkgen_rate import chunks_per_s
from jfr_arms import ARMS, Arm, event_counts
from jfr_cpu import SHOWN, CpuProbe
from jfr_within import run_within, toggle_argv, toggler_classes
from jvmlab.collect.jfr import RECORDING, JfrCollector
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk.identify import identify
from jvmlab.model.collected import Collected
from jvmlab.model.documents import JfrDocument
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import Probe, ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult
from jvmlab.workloads.builtin import prepare_builtin

FLAGS = ["-Xms512m", "-Xmx512m", "-XX:+UseG1GC"]
TARGET = 0.98
Run = dict[str, float]


def steady_rate(result: ProcessResult, skip_s: int) -> float:
    """Chunks per second between the progress lines of second ``skip_s`` and the last full second
    but one (the span :meth:`CpuProbe.steady` measures CPU over)."""
    counts = [int(line.split()[1]) for line in (result.stdout_path.read_text() if result.stdout_path else "")
              .splitlines() if line.startswith("progress ")]
    per_second = counts[:-2]  # the last line is printed after the workers joined, not on a second
    if len(per_second) <= skip_s + 1:
        sys.exit(f"chunkgen printed {len(per_second)} progress lines: run longer than --skip-s + 2 s")
    return (per_second[-1] - per_second[skip_s - 1]) / (len(per_second) - skip_s)


def run_once(jdk: JdkInfo, tail: list[str], folder: Path, arm: Arm | None, skip_s: int) -> Run:
    """The figures of one run of the workload with ``arm`` (None: JFR off)."""
    folder.mkdir(parents=True, exist_ok=True)
    recording = folder / RECORDING
    ctx = ProbeContext(jdk=jdk, cell_name="bench", flags=tuple(FLAGS), artifacts_dir=folder)
    probes: list[Probe] = [JfrCollector(arm.collector).probe(ctx)] if arm and arm.collector else []
    extra = arm.jvm_args(jdk.feature, jdk.home, folder.parent, recording) if arm and not arm.collector else []
    argv = [str(jdk.java), *FLAGS, *extra, *(a for p in probes for a in p.jvm_args()), *tail]
    plan = InvocationPlan(argv=tuple(argv), env={"PATH": "/usr/bin:/bin"}, cwd=folder, timeout_s=900,
                          artifacts_dir=folder)
    cpu = CpuProbe()
    result = LocalExecutor().run(plan, [*probes, cpu])
    size = recording.stat().st_size if recording.is_file() else 0
    t0 = time.perf_counter()
    collected = Collected()
    for probe in probes:
        collected.merge(probe.finish(result))
    read_s = time.perf_counter() - t0
    if result.status != "ok":
        sys.exit(f"run failed: {result.reason}")
    stored = collected.documents.get(JfrDocument.KIND) if probes else None
    jfr = JfrDocument.from_json(stored) if stored is not None else None
    if jfr is not None and jfr.error:
        sys.exit(f"jfr unusable: {jfr.error}")
    wall = result.measures.wall_s if result.measures else float("nan")
    return {"steady": steady_rate(result, skip_s), "whole": chunks_per_s(result), "wall": wall, "read": read_s,
            "size": float(size), "exit_s": wall - cpu.last_line_s, **cpu.steady(skip_s)}


def ratio_ci(on: list[float], off: list[float]) -> tuple[float, float, float]:
    """Geometric mean of the paired ratios on/off and its Student-t 95 % interval."""
    logs = [math.log(a / b) for a, b in zip(on, off, strict=True)]
    mean = statistics.mean(logs)
    if len(logs) < 2:
        return math.exp(mean), float("nan"), float("nan")
    half = student_t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def verdict(low: float, high: float, target: float = TARGET) -> str:
    """PASS / FAIL / UNDECIDED of a ratio interval against "at most 1 - target lost"."""
    if math.isnan(low):
        return "UNDECIDED (one round)"
    if low >= target:
        return "PASS"
    return "FAIL" if high < target else "UNDECIDED"


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--arms", default="default", help="comma-separated; 'list' prints them")
    parser.add_argument("--minutes", type=float, default=8.0, help="no new round after this (0: --rounds only)")
    parser.add_argument("--rounds", type=int, default=40, help="at most this many rounds")
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--skip-s", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--retain-mb", type=int, default=64)
    parser.add_argument("--no-summary", action="store_true", help="skip jfr summary of the first round")
    parser.add_argument("--within", type=float, default=0.0, metavar="PERIOD_S",
                        help="one JVM per arm and round switching its recording on and off every PERIOD_S")
    parser.add_argument("--settle-s", type=float, default=1.0,
                        help="--within: seconds after a switch left out (the work of starting/stopping)")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if args.arms == "list":
        print("\n".join(f"{a.name:12} {a.what}" for a in ARMS.values()))
        return
    names = args.arms.split(",")
    unknown = [a for a in names if a not in ARMS]
    if unknown or args.skip_s < 1 or args.seconds < args.skip_s + 4:
        sys.exit(f"unknown arms {unknown}: choose from {', '.join(ARMS)}" if unknown
                 else "need --skip-s >= 1 and --seconds >= --skip-s + 4")
    arms: list[Arm | None] = [None, *(ARMS[a] for a in names)]
    jdk = identify(args.jdk)
    built = prepare_builtin("chunkgen", jdk)
    tail = ["-cp", str(built.classpath), built.main_class, "--threads", str(args.threads),
            "--seconds", str(args.seconds), "--retain-mb", str(args.retain_mb), "--chunk-kb", "64"]
    if args.within > 0:
        within(args, jdk, [a for a in arms if a], tail)
        return
    runs: dict[str, list[Run]] = {a.name if a else "off": [] for a in arms}
    events: dict[str, dict[str, tuple[int, int]]] = {}
    loads: list[str] = []
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="jvmlab-jfr-overhead-") as tmp:
        run_once(jdk, tail, Path(tmp) / "warm", None, args.skip_s)  # warm the page cache
        for rnd in range(args.rounds):
            spent = time.monotonic() - began
            if rnd >= 2 and args.minutes > 0 and spent * (rnd + 1) / rnd > 60 * args.minutes:
                break  # the next round would end past the budget
            order = arms[rnd % len(arms):] + arms[:rnd % len(arms)]  # rotate: no arm always first
            loads.append(_load())
            for arm in order:
                name = arm.name if arm else "off"
                folder = Path(tmp) / f"r{rnd}-{name}"
                got = run_once(jdk, tail, folder, arm, args.skip_s)
                runs[name].append(got)
                if rnd == 0 and arm and not args.no_summary:
                    events[name] = event_counts(jdk.home / "bin" / "jfr", folder / RECORDING)
                print(f"round {rnd + 1} {name:12}: steady {got['steady']:8.1f} chunks/s, whole run "
                      f"{got['whole']:8.1f}, wall {got['wall']:.2f} s, CPU {got['cpu_ms']:.3f} ms/chunk "
                      f"(workers {got['workers_cpu_ms']:.3f}), JFR threads {got['ms_s_jfr']:.1f} ms/s"
                      + (f", recording {got['size'] / 1024:.0f} KiB" if got["size"] else ""), flush=True)
    report(args, jdk, runs, events, loads, time.monotonic() - began)


def within(args: argparse.Namespace, jdk: JdkInfo, arms: list[Arm], tail: list[str]) -> None:
    """--within: rounds of one toggling JVM per arm (see jfr_within); per arm the ratio on/off."""
    runs: dict[str, list[Run]] = {a.name: [] for a in arms}
    loads: list[str] = []
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="jvmlab-jfr-within-") as tmp:
        toggler = toggler_classes(jdk, Path(tmp) / "toggler")
        classpath, main = tail[1], tail[2:]
        for rnd in range(args.rounds):
            spent = time.monotonic() - began
            if rnd >= 2 and args.minutes > 0 and spent * (rnd + 1) / rnd > 60 * args.minutes:
                break
            loads.append(_load())
            for arm in arms[rnd % len(arms):] + arms[:rnd % len(arms)]:
                argv = toggle_argv(jdk, arm, Path(tmp), toggler, args.within, classpath, main)
                got = run_within(jdk, FLAGS, argv, Path(tmp) / f"r{rnd}-{arm.name}", args.skip_s,
                                 args.settle_s)
                runs[arm.name].append(got)
                print(f"round {rnd + 1} {arm.name:12}: rate on/off {math.exp(got['rate']):.4f}, CPU per chunk off/on "
                      f"{math.exp(-got['cpu']):.4f} over {got['periods']:.0f} periods", flush=True)
    print(f"\nJDK {jdk.version}, chunkgen {args.threads} threads x {args.seconds:g} s, retain {args.retain_mb} MB, "
          f"events of a running recording switched every {args.within:g} s inside each JVM (seconds before "
          f"{args.skip_s} and within {args.settle_s:g} s of a switch left out), {len(loads)} rounds in "
          f"{(time.monotonic() - began) / 60:.1f} min; load average at round start {', '.join(loads)}")
    for name, got in runs.items():
        used = [r for r in got if not math.isnan(r["rate"])]
        rate, low, high = ratio_ci([math.exp(r["rate"]) for r in used], [1.0] * len(used))
        cpu, clow, chigh = ratio_ci([1.0] * len(used), [math.exp(r["cpu"]) for r in used])
        print(f"RESULT jfr {name} (its events, inside one JVM): throughput on/off {rate:.4f} [95% {low:.4f} .. "
              f"{high:.4f}] (+-{50 * (high - low):.2f}%, cost {100 * (1 - rate):.2f}%): {verdict(low, high)} against "
              f"the 2% target; CPU per chunk off/on {cpu:.4f} [{clow:.4f} .. {chigh:.4f}] {verdict(clow, chigh)}; "
              f"{len(used)} JVMs, {sum(r['periods'] for r in used):.0f} periods compared")
        print(f"{'':12}  CPU ms/s by threads in settled on (off) seconds: " + ", ".join(
            f"{g} {statistics.mean(r[f'on_ms_s_{g}'] for r in used):.0f} "
            f"({statistics.mean(r[f'off_ms_s_{g}'] for r in used):.0f})" for g in SHOWN) if used else "")


def report(args: argparse.Namespace, jdk: JdkInfo, runs: dict[str, list[Run]],
           events: dict[str, dict[str, tuple[int, int]]], loads: list[str], spent_s: float) -> None:
    """Per arm, the paired ratios with their intervals and verdicts; the headline for ``default``."""
    off = runs["off"]
    print(f"\nJDK {jdk.version}, chunkgen {args.threads} threads x {args.seconds:g} s, retain {args.retain_mb} MB "
          f"(steady state after {args.skip_s} s), {len(off)} rounds in {spent_s / 60:.1f} min, arms interleaved "
          f"in rotated order; load average at round start {', '.join(loads)}")
    print(f"{'off':12}: steady {statistics.mean(r['steady'] for r in off):8.1f} chunks/s (runs "
          f"{min(r['steady'] for r in off):.1f}..{max(r['steady'] for r in off):.1f}); CPU ms/s by threads: "
          + ", ".join(f"{g} {statistics.mean(r[f'ms_s_{g}'] for r in off):.0f}" for g in SHOWN))
    for name, on in runs.items():
        if name != "off":
            _report_arm(name, on, off, events.get(name, {}))
    for name in runs:
        if name in ("default", "profile"):
            ratio, low, high = ratio_ci([r["steady"] for r in runs[name]], [r["steady"] for r in off])
            print(f"\nRESULT jfr {name}: steady throughput cost {100 * (1 - ratio):.2f}% [95% "
                  f"{100 * (1 - high):.2f}% .. {100 * (1 - low):.2f}%], ratio {ratio:.4f} [{low:.4f} .. {high:.4f}] "
                  f"(+-{50 * (high - low):.2f}%): {verdict(low, high)} against the 2% target")


def _report_arm(name: str, on: list[Run], off: list[Run], counts: dict[str, tuple[int, int]]) -> None:
    def paired(key: str, invert: bool = False) -> str:
        a, b = [r[key] for r in on], [r[key] for r in off]
        ratio, low, high = ratio_ci(b, a) if invert else ratio_ci(a, b)
        return f"{ratio:.4f} [{low:.4f} .. {high:.4f}] {verdict(low, high)}"

    mean = statistics.mean
    print(f"\n{name:12}: {ARMS[name].what}")
    print(f"{'':12}  throughput on/off {paired('steady')}; whole run {paired('whole')}")
    print(f"{'':12}  CPU per chunk off/on: process {paired('cpu_ms', True)}; worker threads "
          f"{paired('workers_cpu_ms', True)}")
    print(f"{'':12}  CPU ms/s by threads: " + ", ".join(
        f"{g} {mean(r[f'ms_s_{g}'] for r in on):.0f} (off {mean(r[f'ms_s_{g}'] for r in off):.0f})" for g in SHOWN))
    print(f"{'':12}  wall {mean(r['wall'] for r in on) - mean(r['wall'] for r in off):+.2f} s per invocation, of "
          f"which {mean(r['exit_s'] for r in on) - mean(r['exit_s'] for r in off):+.2f} s after main's last line "
          f"(the dump at exit); recording {mean(r['size'] for r in on) / 1024:.0f} KiB"
          + (f", read by jvmlab in {mean(r['read'] for r in on):.2f} s" if ARMS[name].collector else ""))
    if counts:
        wall = on[0]["wall"]
        top = sorted(counts.items(), key=lambda kv: -kv[1][0])[:8]
        print(f"{'':12}  events per s (round 1, {sum(c for c, _ in counts.values())} events): "
              + ", ".join(f"{n.removeprefix('jdk.')} {c / wall:.0f}" for n, (c, _) in top if c))


if __name__ == "__main__":
    main()
