"""What each collector's JVM flags cost a short JVM, counted in instructions (not timed).

    .venv/bin/python bench/collector_flags.py [--jdk HOME ...] [--runs 2]

Runs the built-in HelloWorld under ``valgrind --tool=callgrind`` (interpreter only,
``-Xint``, so the count does not depend on what the JIT compiled when) with no extra flag,
with each default collector's flags alone (the GC log at its default ``light`` level, and
at ``full``: ``gc*``), and with all of them, and prints the instructions each adds. A
count is what a busy machine cannot blur: on this 2-core machine shared by seven builds,
wall and CPU times of a 40 ms JVM varied by more than the few percent in question, while
two counts of the same command agree within 0.1 %. Each variant runs ``--runs`` times;
the smallest count is kept (a run can only add work).

Needs valgrind (Debian package ``valgrind``); about 20 s per run on a quiet machine.
The instruction counts are the JVM's cost alone: jvmlab's own side (sampler, readers) is
measured by bench/observer_effect.py and bench/vs_hyperfine.py.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jvmlab.collect.gc import GcCollector
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.jdk.identify import identify
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext
from jvmlab.workloads.builtin import prepare_builtin

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def variants(jdk: JdkInfo, folder: Path) -> dict[str, list[str]]:
    """The flags of each default collector that adds any, alone, then all of them."""
    ctx = ProbeContext(jdk=jdk, cell_name="bench", flags=(), artifacts_dir=folder)
    per = {c.name: c.probe(ctx).jvm_args() for c in build_collectors(CollectSettings(), None)}
    out = {"none": []}
    out.update({f"{name} alone": args for name, args in per.items() if args})
    out['gc alone, gc_log = "full"'] = GcCollector(level="full").probe(ctx).jvm_args()
    out["all default collectors"] = [a for args in per.values() for a in args]
    return out


def count(valgrind: str, argv: list[str], folder: Path) -> int:
    """Instructions (callgrind's Ir) the command executed, all threads."""
    done = subprocess.run([valgrind, "--tool=callgrind", "--smc-check=all-non-file",
                           f"--callgrind-out-file={folder / 'callgrind.out'}", *argv],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600, check=False)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"valgrind failed on {argv}: {done.stderr[-500:]}")
    for log in folder.glob("gc-*.log"):
        log.unlink()
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jdk", action="append", default=None,
                        help="JDK home (repeatable); default the JDK 17 and 25 of this machine")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        sys.exit("needs valgrind: apt-get install -y valgrind")
    homes = args.jdk or ["/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/temurin-25-jdk-amd64"]
    with tempfile.TemporaryDirectory(prefix="jvmlab-flags-") as tmp:
        folder = Path(tmp)
        for home in homes:
            jdk = identify(home)
            built = prepare_builtin("hello", jdk)
            base: int | None = None
            print(f"\nJDK {jdk.version}: HelloWorld -Xint, instructions (smallest of {args.runs} runs)")
            for label, flags in variants(jdk, folder).items():
                argv = [str(jdk.java), "-Xint", *flags, "-cp", str(built.classpath), built.main_class]
                n = min(count(valgrind, argv, folder) for _ in range(max(1, args.runs)))
                base = n if base is None else base
                print(f"  {label:28} {n / 1e6:8.2f} M  {(n - base) / 1e6:+7.2f} M  {n / base - 1:+7.2%}  "
                      f"{' '.join(flags)[:90]}", flush=True)


if __name__ == "__main__":
    main()
