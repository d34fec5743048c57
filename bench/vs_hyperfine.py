"""jvmlab against hyperfine on the same commands, interleaved, in one run.

    .venv/bin/python bench/vs_hyperfine.py [--quick] [--rounds 16] [--batch 3]
                                           [--hyperfine-output pipe|null] [--jdk17 HOME] [--jdk25 HOME]

Commands: ``/bin/true``, and the built-in HelloWorld on JDK 17 and JDK 25, each with
``-Xshare:auto`` and ``-Xshare:off``. Each round runs, for every command in a shuffled order,
a batch of ``hyperfine -N`` runs (after one warm-up run), a batch through jvmlab's executor
with no collector, a batch with every collector on (GC log, /proc sampler, progress,
workload metrics, flag effect; the JVM gets the GC log flags, as in ``jvmlab run``), each
also after one discarded run, and a batch of ``hyperfine -N`` on the command with the
collectors' JVM flags (``hyperfine+flags``: what the flags cost the JVM, no jvmlab at all).
Times of all rounds are pooled.

Like with like: jvmlab reads the child's stdout and stderr through pipes, so hyperfine is
run with ``--output=pipe`` (``--hyperfine-output null``: its default, /dev/null); hyperfine
puts a variable of random length (0 to 4095 bytes), ``HYPERFINE_RANDOMIZED_ENVIRONMENT_OFFSET``, into
the child's environment to vary its stack alignment, so jvmlab's runs get the same.

Prints per command both tools' median and mean wall time, their ratios, peak RSS (jvmlab's
``max_rss_bytes`` next to ``/usr/bin/time -f %M``, as hyperfine 1.15 exports none), the ``-Xshare:off``/``auto`` ratio
from each tool, and PASS/FAIL per target:

* ``/bin/true``: jvmlab median <= hyperfine median + 0.5 ms;
* each JVM command: jvmlab mean within +-3 % of hyperfine's (collectors on: +-5 %);
* each JDK's ``-Xshare:off``/``auto`` ratio: jvmlab's within +-3 % of hyperfine's.

Each ratio is printed with a 95 % interval from a bootstrap over the rounds (rounds are
resampled whole: the tools' runs of one round saw the same load). The verdict is the point
estimate's; ``--quick`` (6 rounds) cannot resolve 3 %, so there a target is PASS only when
its whole interval is within the tolerance, FAIL only when it is wholly outside, and
UNDECIDED otherwise. The decomposition rows split a collectors-on miss into the JVM's side
(``hyperfine+flags`` / ``hyperfine``) and jvmlab's (``jvmlab+collectors`` / ``hyperfine+flags``).

Installs hyperfine (Debian package) when missing. On a busy machine expect noise: the
targets are meant for a quiet one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from busy import load_at_start, warn_if_busy
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
TOOLS = ("hyperfine", "jvmlab", "jvmlab+collectors", "hyperfine+flags")
BOOTSTRAP = 2000
ENV_OFFSET = "HYPERFINE_RANDOMIZED_ENVIRONMENT_OFFSET"
GNU_TIME = Path("/usr/bin/time")


@dataclass
class Command:
    """One command and what each tool measured of it (seconds, bytes)."""

    label: str
    argv: list[str]
    jdk: JdkInfo | None = None
    times: dict[str, list[float]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    rounds: dict[str, list[list[float]]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    rss: dict[str, list[float]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    gnu_time_rss: list[float] = field(default_factory=list)


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
    """The JVM flags every collector adds (GC log into ``folder``), as ``jvmlab run`` gives them."""
    if cmd.jdk is None:
        return []
    ctx = ProbeContext(jdk=cmd.jdk, cell_name=cmd.label, flags=(), artifacts_dir=folder)
    return [a for c in build_collectors(CollectSettings(), None) for a in c.probe(ctx).jvm_args()]


def _record(cmd: Command, tool: str, times: list[float]) -> None:
    cmd.times[tool].extend(times)
    cmd.rounds[tool].append(list(times))


def run_hyperfine(hyperfine: str, cmd: Command, runs: int, tmp: Path, output: str, with_flags: bool = False) -> None:
    out = tmp / "hf.json"
    folder = tmp / "hyperfine-flags"
    folder.mkdir(exist_ok=True)
    argv = cmd.argv[:1] + collector_flags(cmd, folder) + cmd.argv[1:] if with_flags else cmd.argv
    # --warmup 1: a fresh hyperfine's first run is slow (4.6 ms for /bin/true here, against
    # 0.6); jvmlab's batches discard their first run too, so both tools are treated alike.
    subprocess.run([hyperfine, "-N", "--warmup", "1", "--runs", str(runs), "--style", "none",
                    f"--output={output}", "--export-json", str(out),
                    shlex.join(argv)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=folder)  # jvmlab's children, too, run in a folder of the same temporary directory
    shutil.rmtree(folder, ignore_errors=True)
    [result] = json.loads(out.read_text())["results"]
    tool = "hyperfine+flags" if with_flags else "hyperfine"
    _record(cmd, tool, result["times"])
    cmd.rss[tool].extend(result.get("memory_usage_byte") or [])


def run_gnu_time(cmd: Command, tmp: Path) -> None:
    """One run under ``/usr/bin/time -f %M``: the reference peak RSS (hyperfine 1.15 exports none)."""
    if not GNU_TIME.exists():
        return
    out = tmp / "time.txt"
    subprocess.run([str(GNU_TIME), "-f", "%M", "-o", str(out), *cmd.argv], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cmd.gnu_time_rss.append(int(out.read_text().split()[-1]) * 1024)


def run_jvmlab(cmd: Command, runs: int, tmp: Path, collectors_on: bool, rng: random.Random) -> None:
    tool = "jvmlab+collectors" if collectors_on else "jvmlab"
    executor = LocalExecutor()
    times: list[float] = []
    for i in range(runs + 1):  # the first run of a batch is discarded, as hyperfine's warm-up
        folder = tmp / f"{tool}-{i}"
        folder.mkdir(parents=True, exist_ok=True)
        probes = []
        if collectors_on and cmd.jdk is not None:
            ctx = ProbeContext(jdk=cmd.jdk, cell_name=cmd.label, flags=(), artifacts_dir=folder)
            probes = [c.probe(ctx) for c in build_collectors(CollectSettings(), None)]
        extra = [a for p in probes for a in p.jvm_args()]
        argv = cmd.argv[:1] + extra + cmd.argv[1:]
        env = {**os.environ, ENV_OFFSET: "X" * rng.randrange(4096)}  # as hyperfine does
        plan = InvocationPlan(argv=tuple(argv), env=env, cwd=folder, timeout_s=120, artifacts_dir=folder)
        result = executor.run(plan, probes)
        collected = Collected()
        for probe in probes:
            collected.merge(probe.finish(result))
        if result.status != "ok" or result.measures is None:
            sys.exit(f"{cmd.label}: {result.reason}")
        shutil.rmtree(folder, ignore_errors=True)
        if i == 0:
            continue
        times.append(result.measures.wall_s)
        if result.measures.max_rss_bytes is not None:
            cmd.rss[tool].append(result.measures.max_rss_bytes)
    _record(cmd, tool, times)


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


class Targets:
    """Prints each target's verdict with a bootstrap interval over rounds; counts the misses.

    ``strict`` (``--quick``): PASS only when the whole interval meets the target, FAIL only
    when none of it does, UNDECIDED otherwise; else the point estimate decides."""

    def __init__(self, n_rounds: int, strict: bool, seed: int) -> None:
        self.n_rounds, self.strict = n_rounds, strict
        self.rng = np.random.default_rng(seed)
        self.missed = 0
        self.undecided = 0

    def interval(self, stat: Callable[[list[int]], float]) -> tuple[float, float]:
        """95 % percentile interval of ``stat`` over rounds resampled whole."""
        picks = self.rng.integers(0, self.n_rounds, size=(BOOTSTRAP, self.n_rounds))
        values = np.array([stat(list(p)) for p in picks])
        lo, hi = np.percentile(values, [2.5, 97.5])
        return float(lo), float(hi)

    def check(self, text: str, stat: Callable[[list[int]], float], low: float, high: float,
              scale: float = 1.0, unit: str = "") -> None:
        """Target: ``low <= stat <= high``; prints value and interval multiplied by ``scale``."""
        value = stat(list(range(self.n_rounds)))
        lo, hi = self.interval(stat)
        if self.strict:
            verdict = "PASS" if lo >= low and hi <= high else ("FAIL" if hi < low or lo > high else "UNDECIDED")
        else:
            verdict = "PASS" if low <= value <= high else "FAIL"
        self.missed += verdict == "FAIL"
        self.undecided += verdict == "UNDECIDED"
        print(f"  {verdict:9}  {text} = {value * scale:.4f}{unit} (95% CI {lo * scale:.4f}..{hi * scale:.4f})")


def _pool(cmd: Command, tool: str, picks: list[int]) -> list[float]:
    return [t for i in picks for t in cmd.rounds[tool][i]]


def _median(cmd: Command, tool: str, picks: list[int]) -> float:
    return statistics.median(_pool(cmd, tool, picks))


def _mean_ratio(cmd: Command, tool: str, base: str) -> Callable[[list[int]], float]:
    return lambda p: statistics.mean(_pool(cmd, tool, p)) / statistics.mean(_pool(cmd, base, p))


def _share_ratio(auto: Command, off: Command, tool: str, base: str) -> Callable[[list[int]], float]:
    """(off/auto of ``tool``) / (off/auto of ``base``), means."""
    return lambda p: _mean_ratio(off, tool, base)(p) / _mean_ratio(auto, tool, base)(p)


def print_table(cmds: list[Command]) -> None:
    print(f"\n{'command':28} {'tool':18} {'n':>4} {'median ms':>10} {'mean ms':>9} "
          f"{'med ratio':>9} {'mean ratio':>10} {'peak RSS MiB':>12}")
    for cmd in cmds:
        hf = cmd.times["hyperfine"]
        for tool in TOOLS:
            t = cmd.times[tool]
            if not t:
                continue
            rss = f"{statistics.median(cmd.rss[tool]) / 2**20:12.1f}" if cmd.rss[tool] else f"{'-':>12}"
            print(f"{cmd.label:28} {tool:18} {len(t):4d} {_ms(t, 'median'):10.3f} {_ms(t, 'mean'):9.3f} "
                  f"{statistics.median(t) / statistics.median(hf):9.3f} "
                  f"{statistics.mean(t) / statistics.mean(hf):10.3f} {rss}")
    print("\npeak RSS (medians): jvmlab max_rss_bytes vs `/usr/bin/time -f %M` on the same command")
    for cmd in cmds:
        if cmd.rss["jvmlab"] and cmd.gnu_time_rss:
            ours, ref = statistics.median(cmd.rss["jvmlab"]), statistics.median(cmd.gnu_time_rss)
            print(f"  {cmd.label:28} jvmlab {ours / 2**20:7.1f} MiB  GNU time {ref / 2**20:7.1f} MiB  "
                  f"ratio {ours / ref:.3f}")


def report(cmds: list[Command], n_rounds: int, strict: bool, seed: int) -> Targets:
    """Print the table, the targets and the decomposition of the collectors' cost."""
    print_table(cmds)
    targets = Targets(n_rounds, strict, seed)
    print("\ntargets" + (" (--quick: decided by the whole interval)" if strict else ""))
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
        for tool in ("jvmlab", "jvmlab+collectors"):
            targets.check(f"JDK {feature} -Xshare:off/auto, {tool} relative to hyperfine (+-{RATIO_TOLERANCE:.0%})",
                          _share_ratio(auto, off, tool, "hyperfine"), 1 - RATIO_TOLERANCE, 1 + RATIO_TOLERANCE)
    print("\nwhere the collectors' cost lies (mean ratios, 95% CI): the JVM's flags alone, then jvmlab's side")
    for cmd in cmds[1:]:
        for text, tool, base in (("JVM side  hyperfine+flags / hyperfine", "hyperfine+flags", "hyperfine"),
                                 ("jvmlab side  jvmlab+collectors / hyperfine+flags", "jvmlab+collectors",
                                  "hyperfine+flags")):
            stat = _mean_ratio(cmd, tool, base)
            lo, hi = targets.interval(stat)
            print(f"  {cmd.label:28} {text:50} {stat(list(range(n_rounds))):.4f} ({lo:.4f}..{hi:.4f})")
    return targets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="6 rounds instead of 16; a target is decided by its whole interval (else UNDECIDED)")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--batch", type=int, default=3,
                        help="runs per tool per command per round (small: the tools see the same load)")
    parser.add_argument("--jdk17", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--jdk25", default="/usr/lib/jvm/temurin-25-jdk-amd64")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hyperfine-output", choices=("pipe", "null"), default="pipe",
                        help="hyperfine's --output: pipe (like jvmlab's capture; default) or null")
    load = load_at_start()
    args = parser.parse_args()
    rounds = args.rounds or (6 if args.quick else 16)
    hyperfine = ensure_hyperfine()
    cmds = commands(args.jdk17, args.jdk25)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="jvmlab-vs-hyperfine-") as tmp_name:
        tmp = Path(tmp_name)
        for cmd in cmds:  # warm the page cache and the CDS archives; discarded
            run_hyperfine(hyperfine, cmd, 2, tmp, args.hyperfine_output)
            run_jvmlab(cmd, 2, tmp, False, rng)
            cmd.times, cmd.rss, cmd.gnu_time_rss = {t: [] for t in TOOLS}, {t: [] for t in TOOLS}, []
            cmd.rounds = {t: [] for t in TOOLS}
        for r in range(rounds):
            for cmd in rng.sample(cmds, len(cmds)):
                steps = [lambda c=cmd: run_hyperfine(hyperfine, c, args.batch, tmp, args.hyperfine_output),
                         lambda c=cmd: run_jvmlab(c, args.batch, tmp, False, rng),
                         lambda c=cmd: run_jvmlab(c, args.batch, tmp, True, rng)]
                if cmd.jdk is not None:
                    steps.append(lambda c=cmd: run_hyperfine(hyperfine, c, args.batch, tmp, args.hyperfine_output,
                                                             with_flags=True))
                for step in rng.sample(steps, len(steps)):
                    step()
                run_gnu_time(cmd, tmp)
            print(f"round {r + 1}/{rounds} done", flush=True)
    print(f"\n{rounds} rounds x {args.batch} runs per tool and command, interleaved; hyperfine "
          f"--output={args.hyperfine_output}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs "
          f"at the end")
    warn_if_busy(load)
    targets = report(cmds, rounds, args.quick, args.seed)
    if targets.missed or targets.undecided:
        print(f"\n{targets.missed} target(s) missed, {targets.undecided} undecided")
    else:
        print("\nall targets met")


if __name__ == "__main__":
    main()
