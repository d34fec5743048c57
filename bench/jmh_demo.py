"""Time `jvmlab demo jmh` (jmh-samples x JDK 17/25 x G1/Parallel) end to end, and the JMH
overhead per invocation next to a bare `java -version` on the same JDK.

Run:  .venv/bin/python bench/jmh_demo.py [--quick] [--store PATH]

Prints, from this one run: the demo's elapsed wall time against its target (a few minutes:
5 min full, 2 min quick), and the mean wall time of a jmh invocation (harness JVM plus one
fork per benchmark) against a JVM that only starts, read from the demo's own store. The Maven
fetch of jmh-samples happens before the clock starts.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_FULL_S = 5 * 60.0
TARGET_QUICK_S = 2 * 60.0
HARD_LIMIT_S = 3600.0


def _startup_s(java: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run([java, "-version"], capture_output=True, timeout=60, check=False)
        times.append(time.monotonic() - started)
    return statistics.mean(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="time `jvmlab demo jmh --quick`")
    parser.add_argument("--store", help="SQLite store to use (default: a temporary file)")
    args = parser.parse_args()
    from jvmlab.scenarios.jdks import demo_jdks
    from jvmlab.workloads.jmh_samples import fetch

    jdks = demo_jdks()
    fetch(jdks[0].home)
    with tempfile.TemporaryDirectory(prefix="jvmlab-bench-") as tmp:
        store = args.store or str(Path(tmp) / "bench.db")
        argv = [sys.executable, "-m", "jvmlab", "demo", "jmh", "--store", store] + (["--quick"] if args.quick else [])
        started = time.monotonic()
        code = subprocess.run(argv, timeout=HARD_LIMIT_S, check=False, stdout=subprocess.DEVNULL).returncode
        elapsed = time.monotonic() - started
        from jvmlab.store.sql import SqlStore

        db = SqlStore(f"sqlite:///{store}")
        exp = db.latest_experiment().id
        walls = [i.wall_s for i in db.invocations(exp) if i.status == "ok" and i.wall_s is not None and i.block >= 0]
    target = TARGET_QUICK_S if args.quick else TARGET_FULL_S
    mode = "quick" if args.quick else "full"
    print(f"jvmlab demo jmh ({mode}): {elapsed:.0f} s elapsed, exit code {code}; target {target:.0f} s; "
          f"elapsed/target = {elapsed / target:.2f}")
    if walls:
        bare = _startup_s(str(jdks[0].java))
        mean = statistics.mean(walls)
        print(f"jmh invocation (harness + 3 forks): {mean:.2f} s mean over {len(walls)}; bare `java -version` "
              f"{bare:.2f} s; ratio {mean / bare:.1f}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
