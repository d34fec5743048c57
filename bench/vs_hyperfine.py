"""jvmlab against hyperfine on the same commands, their runs interleaved one by one.

    .venv/bin/python bench/vs_hyperfine.py [--quick] [--rounds 60] [--runs 5]
                                           [--hyperfine-output pipe|null] [--jdk17 HOME] [--jdk25 HOME]

Commands: ``/bin/true``, and the built-in HelloWorld on JDK 17 and JDK 25, each with
``-Xshare:auto`` and ``-Xshare:off``. Tools: ``hyperfine -N``; jvmlab's executor with no
collector; jvmlab with every default collector on (GC log, /proc sampler, progress,
workload metrics, flag effect; the JVM gets the GC log flags, as in ``jvmlab run``); and
``hyperfine -N`` on the command with the collectors' JVM flags (``hyperfine+flags``: what
the flags cost the JVM, no jvmlab at all).

Run order, so that the machine's drift cancels: each round, for every command in a shuffled
order, one hyperfine process per hyperfine arm is started with ``--warmup 1 --runs RUNS`` and
a ``--prepare`` command that blocks on a FIFO until the bench lets its next run go
(bench/hyperfine_paced.py). Then RUNS + 1 times (the first is discarded by both tools:
hyperfine's warm-up), every tool does one run, in a shuffled order. So a hyperfine run and
a jvmlab run of the same command are never more than a few runs apart, and a pair of
rounds' means sees the same load; the round, not the run, is the unit of the statistics.

Like with like: jvmlab reads the child's stdout and stderr through pipes, so hyperfine is
run with ``--output=pipe`` (``--hyperfine-output null``: its default, /dev/null); hyperfine
puts a variable of random length (0 to 4095 bytes), ``HYPERFINE_RANDOMIZED_ENVIRONMENT_OFFSET``, into
the child's environment to vary its stack alignment, so jvmlab's runs get the same.

Prints per command both tools' median and mean wall time, their ratios, peak RSS (jvmlab's
``max_rss_bytes`` next to ``/usr/bin/time -f %M``, as hyperfine 1.15 exports none), the
child's CPU time (user + sys) ratio (less noisy than wall time: a run that waited for a CPU
is not charged for it), the ``-Xshare:off``/``auto`` ratio from each tool, and per target:

* ``/bin/true``: jvmlab median <= hyperfine median + 0.5 ms;
* each JVM command: jvmlab mean within +-3 % of hyperfine's (collectors on: +-5 %);
* each JDK's ``-Xshare:off``/``auto`` ratio: jvmlab's within +-3 % of hyperfine's
  (collectors on: +-5 %).

Each figure has a 95 % interval from a bootstrap over rounds (rounds resampled whole) and
its standard error (the bootstrap's SD). A target is PASS when its whole interval meets it,
FAIL when none of it does, UNDECIDED otherwise, and then the bench prints how many rounds
would decide it (the interval shrinks as 1/sqrt(rounds)). The default, 60 rounds of 5 runs,
is sized for intervals of about +-1.5 % on a quiet machine; ``--quick`` (6 rounds of 3)
only shows that the bench runs (with so few rounds a bootstrap interval covers less than
95 %: its verdicts are not to be trusted either). The decomposition rows split a collectors-on miss into the
JVM's side (``hyperfine+flags`` / ``hyperfine``) and jvmlab's (``jvmlab+collectors`` /
``hyperfine+flags``).

Installs hyperfine (Debian package) when missing. On a busy machine expect noise: the
targets are meant for a quiet one.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from busy import load_at_start, warn_if_busy
from hyperfine_paced import PacedHyperfine
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk.identify import identify
from jvmlab.model.collected import Collected
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import InvocationPlan
from jvmlab.workloads.builtin import prepare_builtin

TRUE_SLACK_S = 0.0005
JVM_TOLERANCE = 0.03
COLLECTORS_TOLERANCE = 0.05
RATIO_TOLERANCE = 0.03
AIM_HALF_WIDTH = 0.015  # the 95 % interval the default rounds are sized for
TOOLS = ("hyperfine", "jvmlab", "jvmlab+collectors", "hyperfine+flags")
HYPERFINE_ARMS = ("hyperfine", "hyperfine+flags")
BOOTSTRAP = 2000
ENV_OFFSET = "HYPERFINE_RANDOMIZED_ENVIRONMENT_OFFSET"
GNU_TIME = Path("/usr/bin/time")


@dataclass
class Command:
    """One command and what each tool measured of it, per round (seconds, bytes)."""

    label: str
    argv: list[str]
    jdk: JdkInfo | None = None
    rounds: dict[str, list[list[float]]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {t: [] for t in TOOLS})  # mean per round
    rss: dict[str, list[float]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    gnu_time_rss: list[float] = field(default_factory=list)

    def tools(self) -> tuple[str, ...]:
        return TOOLS if self.jdk is not None else ("hyperfine", "jvmlab")

    def times(self, tool: str) -> list[float]:
        return [t for r in self.rounds[tool] for t in r]


def ensure_hyperfine() -> str:
    found = shutil.which("hyperfine")
    if found:
        return found
    print("hyperfine missing: apt-get install -y hyperfine", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "install", "-y", "-qq", "hyperfine"], check=False, env=env,
                   stdout=subprocess.DEVNULL)
    found = shutil.which("hyperfine")
    if not found:
        sys.exit("cannot install hyperfine (Debian package `hyperfine`); install it and rerun")
    return found


def collector_flags(cmd: Command, folder: Path) -> list[str]:
    """The JVM flags every default collector adds (GC log into ``folder``), as ``jvmlab run`` gives them."""
    if cmd.jdk is None:
        return []
    ctx = ProbeContext(jdk=cmd.jdk, cell_name=cmd.label, flags=(), artifacts_dir=folder)
    return [a for c in build_collectors(CollectSettings(), None) for a in c.probe(ctx).jvm_args()]


def run_gnu_time(cmd: Command, tmp: Path) -> None:
    """One run under ``/usr/bin/time -f %M``: the reference peak RSS (hyperfine 1.15 exports none)."""
    if not GNU_TIME.exists():
        return
    out = tmp / "time.txt"
    subprocess.run([str(GNU_TIME), "-f", "%M", "-o", str(out), *cmd.argv], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cmd.gnu_time_rss.append(int(out.read_text().split()[-1]) * 1024)


class JvmlabArm:
    """One jvmlab run at a time of one command, with or without the default collectors."""

    def __init__(self, cmd: Command, collectors_on: bool, tmp: Path, rng: random.Random) -> None:
        self.cmd, self.collectors_on, self.tmp, self.rng = cmd, collectors_on, tmp, rng
        self.tool = "jvmlab+collectors" if collectors_on else "jvmlab"
        self.executor = LocalExecutor()
        self.times: list[float] = []
        self.cpu: list[float] = []

    def turn(self, keep: bool) -> None:
        cmd = self.cmd
        folder = self.tmp / f"{self.tool}-run"
        folder.mkdir(parents=True, exist_ok=True)
        probes = []
        if self.collectors_on and cmd.jdk is not None:
            ctx = ProbeContext(jdk=cmd.jdk, cell_name=cmd.label, flags=(), artifacts_dir=folder)
            probes = [c.probe(ctx) for c in build_collectors(CollectSettings(), None)]
        extra = [a for p in probes for a in p.jvm_args()]
        argv = cmd.argv[:1] + extra + cmd.argv[1:]
        env = {**os.environ, ENV_OFFSET: "X" * self.rng.randrange(4096)}  # as hyperfine does
        plan = InvocationPlan(argv=tuple(argv), env=env, cwd=folder, timeout_s=120, artifacts_dir=folder)
        result = self.executor.run(plan, probes)
        collected = Collected()
        for probe in probes:
            collected.merge(probe.finish(result))
        m = result.measures
        if result.status != "ok" or m is None:
            sys.exit(f"{cmd.label}: {result.reason}")
        shutil.rmtree(folder, ignore_errors=True)
        if not keep:
            return
        self.times.append(m.wall_s)
        if m.user_s is not None and m.sys_s is not None:
            self.cpu.append(m.user_s + m.sys_s)
        if m.max_rss_bytes is not None:
            cmd.rss[self.tool].append(m.max_rss_bytes)

    def record(self) -> None:
        self.cmd.rounds[self.tool].append(self.times)
        self.cmd.cpu[self.tool].append(statistics.mean(self.cpu) if self.cpu else math.nan)


def run_round(hyperfine: str, cmd: Command, runs: int, tmp: Path, output: str, rng: random.Random) -> None:
    """One round of one command: every tool's runs, interleaved one by one in a shuffled order."""
    folder = tmp / "round"
    shutil.rmtree(folder, ignore_errors=True)
    paced: dict[str, PacedHyperfine] = {}
    try:
        for arm in HYPERFINE_ARMS[: 2 if cmd.jdk is not None else 1]:
            where = folder / arm
            argv = cmd.argv[:1] + collector_flags(cmd, where) + cmd.argv[1:] if arm == "hyperfine+flags" else cmd.argv
            paced[arm] = PacedHyperfine(hyperfine, argv, runs, where, output)
        ours = [JvmlabArm(cmd, on, folder, rng) for on in ((False, True) if cmd.jdk is not None else (False,))]
        turns: list[Callable[[bool], None]] = [lambda keep, p=p: p.turn() for p in paced.values()]
        turns += [j.turn for j in ours]
        for i in range(runs + 1):  # run 0: everyone's warm-up, discarded
            for turn in rng.sample(turns, len(turns)):
                turn(i > 0)
        for arm, p in paced.items():
            result = p.result()
            cmd.rounds[arm].append(list(result["times"]))
            cmd.cpu[arm].append(result["user"] + result["system"])
        for j in ours:
            j.record()
    finally:
        for p in paced.values():
            p.close()
        shutil.rmtree(folder, ignore_errors=True)


def commands(jdk17: str, jdk25: str) -> list[Command]:
    out = [Command("/bin/true", ["/bin/true"])]
    for home in (jdk17, jdk25):
        jdk = identify(home)
        built = prepare_builtin("hello", jdk)
        for share in ("auto", "off"):
            out.append(Command(f"JDK {jdk.feature} hello -Xshare:{share}",
                               [str(jdk.java), f"-Xshare:{share}", "-cp", str(built.classpath), built.main_class],
                               jdk))
    return out


def _ms(values: list[float], how: str) -> float:
    return 1000 * (statistics.median(values) if how == "median" else statistics.mean(values))


Stat = Callable[[list[int]], float]


class Targets:
    """Prints each figure with a bootstrap interval and SE over rounds; decides targets by the interval."""

    def __init__(self, n_rounds: int, seed: int) -> None:
        self.n_rounds = n_rounds
        self.rng = np.random.default_rng(seed)
        self.missed = 0
        self.undecided = 0

    def spread(self, stat: Stat) -> tuple[float, float, float]:
        """95 % percentile interval and standard error of ``stat`` over rounds resampled whole."""
        picks = self.rng.integers(0, self.n_rounds, size=(BOOTSTRAP, self.n_rounds))
        values = np.array([stat(list(p)) for p in picks])
        lo, hi = np.percentile(values, [2.5, 97.5])
        return float(lo), float(hi), float(np.std(values, ddof=1))

    def figure(self, text: str, stat: Stat, width: int = 62) -> None:
        """A ratio with its interval and SE, no target; with the rounds a +-1.5 % interval needs."""
        value = stat(list(range(self.n_rounds)))
        lo, hi, se = self.spread(stat)
        print(f"  {text:{width}} {value:.4f} (95% CI {lo:.4f}..{hi:.4f}, SE {se / value:.2%}; "
              f"+-{AIM_HALF_WIDTH:.1%} needs {self.rounds_for(hi - lo, 2 * AIM_HALF_WIDTH * value)})")

    def check(self, text: str, stat: Stat, low: float, high: float, scale: float = 1.0, unit: str = "") -> None:
        """Target ``low <= stat <= high``: PASS when the whole interval is inside, FAIL when all of it is out."""
        value = stat(list(range(self.n_rounds)))
        lo, hi, se = self.spread(stat)
        verdict = "PASS" if lo >= low and hi <= high else ("FAIL" if hi < low or lo > high else "UNDECIDED")
        self.missed += verdict == "FAIL"
        self.undecided += verdict == "UNDECIDED"
        rel = f", SE {se / abs(value):.2%}" if unit == "" and value else f", SE {se * scale:.4f} {unit.split()[0]}"
        line = f"  {verdict:9}  {text} = {value * scale:.4f}{unit} (95% CI {lo * scale:.4f}..{hi * scale:.4f}{rel})"
        if verdict == "UNDECIDED":
            # The interval must shrink to twice the distance from the estimate to the nearer bound.
            room = min(abs(value - b) for b in (low, high) if math.isfinite(b))
            line += f"; deciding it needs {self.rounds_for(hi - lo, 2 * room)}"
        print(line)

    def rounds_for(self, width_now: float, width_wanted: float) -> str:
        """About how many rounds give an interval of ``width_wanted`` (widths shrink as 1/sqrt(rounds))."""
        if width_wanted <= 0 or not math.isfinite(width_now):
            return f"more than {100 * self.n_rounds} rounds"
        need = math.ceil(self.n_rounds * (width_now / width_wanted) ** 2)
        return f"about {need} rounds" if need <= 100 * self.n_rounds else f"more than {100 * self.n_rounds} rounds"


def _pool(cmd: Command, tool: str, picks: list[int]) -> list[float]:
    return [t for i in picks for t in cmd.rounds[tool][i]]


def _median(cmd: Command, tool: str, picks: list[int]) -> float:
    return statistics.median(_pool(cmd, tool, picks))


def _mean_ratio(cmd: Command, tool: str, base: str) -> Stat:
    return lambda p: statistics.mean(_pool(cmd, tool, p)) / statistics.mean(_pool(cmd, base, p))


def _cpu_ratio(cmd: Command, tool: str, base: str) -> Stat:
    """Mean child CPU (user + sys) of ``tool`` over ``base``'s: rounds have equal runs, so round means average."""
    return lambda p: (statistics.mean(cmd.cpu[tool][i] for i in p) / statistics.mean(cmd.cpu[base][i] for i in p))


def _share_ratio(auto: Command, off: Command, tool: str, base: str) -> Stat:
    """(off/auto of ``tool``) / (off/auto of ``base``), means."""
    return lambda p: _mean_ratio(off, tool, base)(p) / _mean_ratio(auto, tool, base)(p)


def print_table(cmds: list[Command]) -> None:
    print(f"\n{'command':28} {'tool':18} {'n':>4} {'median ms':>10} {'mean ms':>9} "
          f"{'med ratio':>9} {'mean ratio':>10} {'CPU ms':>7} {'peak RSS MiB':>12}")
    for cmd in cmds:
        hf = cmd.times("hyperfine")
        for tool in cmd.tools():
            t = cmd.times(tool)
            rss = f"{statistics.median(cmd.rss[tool]) / 2**20:12.1f}" if cmd.rss[tool] else f"{'-':>12}"
            print(f"{cmd.label:28} {tool:18} {len(t):4d} {_ms(t, 'median'):10.3f} {_ms(t, 'mean'):9.3f} "
                  f"{statistics.median(t) / statistics.median(hf):9.3f} "
                  f"{statistics.mean(t) / statistics.mean(hf):10.3f} {_ms(cmd.cpu[tool], 'mean'):7.2f} {rss}")
    print("\npeak RSS (medians): jvmlab max_rss_bytes vs `/usr/bin/time -f %M` on the same command")
    for cmd in cmds:
        if cmd.rss["jvmlab"] and cmd.gnu_time_rss:
            ours, ref = statistics.median(cmd.rss["jvmlab"]), statistics.median(cmd.gnu_time_rss)
            print(f"  {cmd.label:28} jvmlab {ours / 2**20:7.1f} MiB  GNU time {ref / 2**20:7.1f} MiB  "
                  f"ratio {ours / ref:.3f}")


def report(cmds: list[Command], n_rounds: int, seed: int) -> Targets:
    """Print the table, the targets, the CPU ratios and the decomposition of the collectors' cost."""
    print_table(cmds)
    targets = Targets(n_rounds, seed)
    print("\ntargets (decided by the whole 95% interval; SE: the bootstrap's standard error)")
    true = cmds[0]
    targets.check("/bin/true: jvmlab median - hyperfine median",
                  lambda p: _median(true, "jvmlab", p) - _median(true, "hyperfine", p),
                  float("-inf"), TRUE_SLACK_S, 1000, " ms (<= +0.5 ms)")
    for cmd in cmds[1:]:
        for tool, tol in (("jvmlab", JVM_TOLERANCE), ("jvmlab+collectors", COLLECTORS_TOLERANCE)):
            targets.check(f"{cmd.label}: {tool} mean / hyperfine mean (+-{tol:.0%})",
                          _mean_ratio(cmd, tool, "hyperfine"), 1 - tol, 1 + tol)
    for auto, off in zip(cmds[1::2], cmds[2::2], strict=False):
        feature = auto.jdk.feature if auto.jdk else "?"
        for tool, tol in (("jvmlab", RATIO_TOLERANCE), ("jvmlab+collectors", COLLECTORS_TOLERANCE)):
            targets.check(f"JDK {feature} -Xshare:off/auto, {tool} relative to hyperfine (+-{tol:.0%})",
                          _share_ratio(auto, off, tool, "hyperfine"), 1 - tol, 1 + tol)
    print("\nchild CPU time (user + sys), mean ratio to hyperfine's (no target: a run that waited for a CPU "
          "is not charged for it)")
    for cmd in cmds[1:]:
        for tool in ("jvmlab", "jvmlab+collectors", "hyperfine+flags"):
            targets.figure(f"{cmd.label:28} {tool}", _cpu_ratio(cmd, tool, "hyperfine"), 48)
    print("\nwhere the collectors' cost lies (mean wall ratios): the JVM's flags alone, then jvmlab's side")
    for cmd in cmds[1:]:
        for text, tool, base in (("JVM side  hyperfine+flags / hyperfine", "hyperfine+flags", "hyperfine"),
                                 ("jvmlab side  jvmlab+collectors / hyperfine+flags", "jvmlab+collectors",
                                  "hyperfine+flags")):
            targets.figure(f"{cmd.label:28} {text}", _mean_ratio(cmd, tool, base), 78)
    return targets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="6 rounds of 3 runs instead of 60 of 5: shows the bench runs, decides little")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--runs", "--batch", dest="runs", type=int, default=None,
                        help="runs per tool and command in a round, after a discarded warm-up run (default 5)")
    parser.add_argument("--jdk17", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--jdk25", default="/usr/lib/jvm/temurin-25-jdk-amd64")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hyperfine-output", choices=("pipe", "null"), default="pipe",
                        help="hyperfine's --output: pipe (like jvmlab's capture; default) or null")
    load = load_at_start()
    args = parser.parse_args()
    rounds = args.rounds or (6 if args.quick else 60)
    runs = args.runs or (3 if args.quick else 5)
    if rounds < 2 or runs < 1:
        sys.exit("--rounds must be at least 2 and --runs at least 1")
    hyperfine = ensure_hyperfine()
    cmds = commands(args.jdk17, args.jdk25)
    rng = random.Random(args.seed)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="jvmlab-vs-hyperfine-") as tmp_name:
        tmp = Path(tmp_name)
        for cmd in cmds:  # warm the page cache and the CDS archives; discarded
            run_round(hyperfine, cmd, 1, tmp, args.hyperfine_output, rng)
            cmd.rounds, cmd.cpu, cmd.rss = ({t: [] for t in TOOLS} for _ in range(3))
        for r in range(rounds):
            for cmd in rng.sample(cmds, len(cmds)):
                run_round(hyperfine, cmd, runs, tmp, args.hyperfine_output, rng)
                run_gnu_time(cmd, tmp)
            print(f"round {r + 1}/{rounds} done ({time.monotonic() - started:.0f} s)", flush=True)
    print(f"\n{rounds} rounds x {runs} runs per tool and command, interleaved run by run; hyperfine "
          f"--output={args.hyperfine_output}; {time.monotonic() - started:.0f} s; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs at the end")
    warn_if_busy(load)
    targets = report(cmds, rounds, args.seed)
    if targets.missed or targets.undecided:
        print(f"\n{targets.missed} target(s) missed, {targets.undecided} undecided")
    else:
        print("\nall targets met")


if __name__ == "__main__":
    main()
