"""jvmlab against hyperfine on the same commands, interleaved, in one run.

    .venv/bin/python bench/vs_hyperfine.py [--quick] [--rounds 16] [--batch 3]
                                           [--jdk17 HOME] [--jdk25 HOME]

Commands: ``/bin/true``, and the built-in HelloWorld on JDK 17 and JDK 25, each with
``-Xshare:auto`` and ``-Xshare:off``. Each round runs, for every command in a shuffled order,
a batch of ``hyperfine -N`` runs (after one warm-up run), a batch through jvmlab's executor
with no collector, and a batch with every collector on (GC log, /proc sampler, progress,
workload metrics, flag effect; the JVM gets the GC log flags, as in ``jvmlab run``), each
also after one discarded run. Times of all rounds are pooled.

Prints per command both tools' median and mean wall time, their ratios, peak RSS (jvmlab's
``max_rss_bytes`` next to ``/usr/bin/time -f %M``, as hyperfine 1.15 exports none), the ``-Xshare:off``/``auto`` ratio
from each tool, and PASS/FAIL per target:

* ``/bin/true``: jvmlab median <= hyperfine median + 0.5 ms;
* each JVM command: jvmlab mean within +-3 % of hyperfine's (collectors on: +-5 %);
* each JDK's ``-Xshare:off``/``auto`` ratio: jvmlab's within +-3 % of hyperfine's.

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
from dataclasses import dataclass, field
from pathlib import Path

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
TOOLS = ("hyperfine", "jvmlab", "jvmlab+collectors")
GNU_TIME = Path("/usr/bin/time")


@dataclass
class Command:
    """One command and what each tool measured of it (seconds, bytes)."""

    label: str
    argv: list[str]
    jdk: JdkInfo | None = None
    times: dict[str, list[float]] = field(default_factory=lambda: {t: [] for t in TOOLS})
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


def run_hyperfine(hyperfine: str, cmd: Command, runs: int, tmp: Path) -> None:
    out = tmp / "hf.json"
    # --warmup 1: a fresh hyperfine's first run is slow (4.6 ms for /bin/true here, against
    # 0.6); jvmlab's batches discard their first run too, so both tools are treated alike.
    subprocess.run([hyperfine, "-N", "--warmup", "1", "--runs", str(runs), "--style", "none",
                    "--export-json", str(out),
                    shlex.join(cmd.argv)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    [result] = json.loads(out.read_text())["results"]
    cmd.times["hyperfine"].extend(result["times"])
    cmd.rss["hyperfine"].extend(result.get("memory_usage_byte") or [])


def run_gnu_time(cmd: Command, tmp: Path) -> None:
    """One run under ``/usr/bin/time -f %M``: the reference peak RSS (hyperfine 1.15 exports none)."""
    if not GNU_TIME.exists():
        return
    out = tmp / "time.txt"
    subprocess.run([str(GNU_TIME), "-f", "%M", "-o", str(out), *cmd.argv], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cmd.gnu_time_rss.append(int(out.read_text().split()[-1]) * 1024)


def run_jvmlab(cmd: Command, runs: int, tmp: Path, collectors_on: bool) -> None:
    tool = "jvmlab+collectors" if collectors_on else "jvmlab"
    executor = LocalExecutor()
    for i in range(runs + 1):  # the first run of a batch is discarded, as hyperfine's warm-up
        folder = tmp / f"{tool}-{i}"
        folder.mkdir(parents=True, exist_ok=True)
        probes = []
        if collectors_on and cmd.jdk is not None:
            ctx = ProbeContext(jdk=cmd.jdk, cell_name=cmd.label, flags=(), artifacts_dir=folder)
            probes = [c.probe(ctx) for c in build_collectors(CollectSettings(), None)]
        extra = [a for p in probes for a in p.jvm_args()]
        argv = cmd.argv[:1] + extra + cmd.argv[1:]
        plan = InvocationPlan(argv=tuple(argv), env=dict(os.environ), cwd=folder, timeout_s=120,
                              artifacts_dir=folder)
        result = executor.run(plan, probes)
        collected = Collected()
        for probe in probes:
            collected.merge(probe.finish(result))
        if result.status != "ok" or result.measures is None:
            sys.exit(f"{cmd.label}: {result.reason}")
        shutil.rmtree(folder, ignore_errors=True)
        if i == 0:
            continue
        cmd.times[tool].append(result.measures.wall_s)
        if result.measures.max_rss_bytes is not None:
            cmd.rss[tool].append(result.measures.max_rss_bytes)


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


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(cmds: list[Command]) -> int:
    """Print the table and the targets; the number of failed targets."""
    failed = 0
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
    print("\ntargets")
    true = cmds[0]
    gap = statistics.median(true.times["jvmlab"]) - statistics.median(true.times["hyperfine"])
    ok = gap <= TRUE_SLACK_S
    failed += not ok
    print(f"  {_verdict(ok)}  /bin/true: jvmlab median - hyperfine median = {gap * 1000:+.3f} ms (<= +0.5 ms)")
    for cmd in cmds[1:]:
        for tool, tol in (("jvmlab", JVM_TOLERANCE), ("jvmlab+collectors", COLLECTORS_TOLERANCE)):
            ratio = statistics.mean(cmd.times[tool]) / statistics.mean(cmd.times["hyperfine"])
            ok = abs(ratio - 1) <= tol
            failed += not ok
            print(f"  {_verdict(ok)}  {cmd.label}: {tool} mean / hyperfine mean = {ratio:.4f} (+-{tol:.0%})")
    for auto, off in zip(cmds[1::2], cmds[2::2], strict=False):
        feature = auto.jdk.feature if auto.jdk else "?"
        ratios = {tool: statistics.mean(off.times[tool]) / statistics.mean(auto.times[tool]) for tool in TOOLS}
        for tool in ("jvmlab", "jvmlab+collectors"):
            rel = ratios[tool] / ratios["hyperfine"]
            ok = abs(rel - 1) <= RATIO_TOLERANCE
            failed += not ok
            print(f"  {_verdict(ok)}  JDK {feature} -Xshare:off/auto: hyperfine {ratios['hyperfine']:.4f}, "
                  f"{tool} {ratios[tool]:.4f} (relative {rel:.4f}, +-{RATIO_TOLERANCE:.0%})")
    return failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="6 rounds instead of 16")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--batch", type=int, default=3,
                        help="runs per tool per command per round (small: the tools see the same load)")
    parser.add_argument("--jdk17", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--jdk25", default="/usr/lib/jvm/temurin-25-jdk-amd64")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rounds = args.rounds or (6 if args.quick else 16)
    hyperfine = ensure_hyperfine()
    cmds = commands(args.jdk17, args.jdk25)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="jvmlab-vs-hyperfine-") as tmp_name:
        tmp = Path(tmp_name)
        for cmd in cmds:  # warm the page cache and the CDS archives; discarded
            run_hyperfine(hyperfine, cmd, 2, tmp)
            run_jvmlab(cmd, 2, tmp, False)
            cmd.times, cmd.rss, cmd.gnu_time_rss = {t: [] for t in TOOLS}, {t: [] for t in TOOLS}, []
        for r in range(rounds):
            for cmd in rng.sample(cmds, len(cmds)):
                steps = [lambda c=cmd: run_hyperfine(hyperfine, c, args.batch, tmp),
                         lambda c=cmd: run_jvmlab(c, args.batch, tmp, False),
                         lambda c=cmd: run_jvmlab(c, args.batch, tmp, True)]
                for step in rng.sample(steps, len(steps)):
                    step()
                run_gnu_time(cmd, tmp)
            print(f"round {r + 1}/{rounds} done", flush=True)
    print(f"\n{rounds} rounds x {args.batch} runs per tool and command, interleaved; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs at the end")
    failed = report(cmds)
    print(f"\n{'all targets met' if not failed else f'{failed} target(s) missed'}")


if __name__ == "__main__":
    main()
