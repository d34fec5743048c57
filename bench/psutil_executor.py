"""The psutil executor (Windows' executor) against the wait4 executor, side by side on this machine.

Run:  .venv/bin/python bench/psutil_executor.py [--runs 10] [--java /usr/lib/jvm/java-17-openjdk-amd64/bin/java]

Both run the same children alternately, ``--runs`` times each: a short JVM (``java -Xmx64m
-version``) and a 1-second child (``python -c "time.sleep(1)"``, where the sampler's steady cost
shows). Prints, per child and executor, the mean child wall time, the child's peak RSS and user
CPU as each measured them, and the CPU the jvmlab process itself spent per invocation (the
sampler's cost), then the ratios.
Targets: the psutil executor adds < 5% to the child's wall time and its sampling costs < 20 ms of
jvmlab CPU per second of child run. Figures from a busy machine are indicative only.

Peak RSS on Linux: both executors report wait4's ru_maxrss, which Linux raises at exec to the
high-water mark of the memory the child had before exec (a fork copy, or with vfork the parent's
own), so a child smaller than this Python process is reported at about this process's size
(here a 1-second python child shows 15-23 MiB where /usr/bin/time -f %M says about 8.5 MiB).
On Windows the peak working set is the child's own.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src")]

from jvmlab.execute.local import LocalExecutor  # noqa: E402
from jvmlab.execute.windows import PsutilExecutor  # noqa: E402
from jvmlab.model.process import InvocationPlan  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--java", default="/usr/lib/jvm/java-17-openjdk-amd64/bin/java")
    args = parser.parse_args()
    children = {"java -version": (args.java, "-Xmx64m", "-version"),
                "sleep 1 s": (sys.executable, "-c", "import time; time.sleep(1)")}
    for label, argv in children.items():
        print(f"-- {label}")
        compare(argv, args.runs)


def compare(argv: tuple[str, ...], runs: int) -> None:
    executors = {"wait4 (local)": LocalExecutor(), "psutil": PsutilExecutor()}
    rows: dict[str, dict[str, list[float]]] = {name: {"wall": [], "rss": [], "user": [], "self_cpu": []}
                                               for name in executors}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for name, executor in executors.items():
                plan = InvocationPlan(argv=argv, env=dict(os.environ),
                                      cwd=Path(tmp), timeout_s=60, artifacts_dir=Path(tmp) / f"{i}-{len(name)}")
                cpu0 = time.process_time()
                result = executor.run(plan)
                self_cpu = time.process_time() - cpu0
                m = result.measures
                assert m is not None and result.status == "ok", result.reason
                rows[name]["wall"].append(m.wall_s)
                rows[name]["rss"].append(float(m.max_rss_bytes or 0))
                rows[name]["user"].append(m.user_s or 0.0)
                rows[name]["self_cpu"].append(self_cpu)
    print(f"{'executor':<16}{'child wall ms':>14}{'peak RSS MiB':>14}{'child user ms':>15}{'jvmlab CPU ms':>15}")
    means = {}
    for name, data in rows.items():
        means[name] = {k: statistics.fmean(v) for k, v in data.items()}
        m = means[name]
        print(f"{name:<16}{m['wall'] * 1e3:>14.1f}{m['rss'] / 2**20:>14.1f}{m['user'] * 1e3:>15.1f}"
              f"{m['self_cpu'] * 1e3:>15.1f}")
    a, b = means["wait4 (local)"], means["psutil"]
    print(f"psutil/wait4: wall x{b['wall'] / a['wall']:.3f}, peak RSS x{b['rss'] / a['rss']:.3f}, "
          f"jvmlab CPU per child second {b['self_cpu'] / b['wall'] * 1e3:.1f} ms "
          f"vs {a['self_cpu'] / a['wall'] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
