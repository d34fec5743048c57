"""What `jvmlab check` costs for a pre-touched heap: before (the JVM pre-touched the heap to
validate the flags) and now (pre-touch parsed, then switched off for the check).

Run:  .venv/bin/python bench/check_pretouch.py [--heap 4g] [--jdk /usr/lib/jvm/java-17-openjdk-amd64]

Prints, side by side from this one run: wall time and the checking JVM's peak RSS of the old
command line (`java -Xms4g -Xmx4g -XX:+AlwaysPreTouch -XX:+PrintFlagsFinal -version`, what
`check` ran on the README's heap example) and of jvmlab's check_flags today, and their ratios.
Target: the check costs well under a second and touches no heap page (RSS far below the heap).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src")]

from jvmlab.jdk.flags import check_flags  # noqa: E402
from jvmlab.jdk.identify import identify  # noqa: E402


def _children_rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heap", default="4g")
    parser.add_argument("--jdk", type=Path, default=Path("/usr/lib/jvm/java-17-openjdk-amd64"))
    args = parser.parse_args()
    jdk = identify(args.jdk)
    flags = [f"-Xms{args.heap}", f"-Xmx{args.heap}", "-XX:+AlwaysPreTouch"]
    # Now first: RUSAGE_CHILDREN keeps the maximum over all children so far.
    started = time.perf_counter()
    check = check_flags(jdk, flags)
    new_s = time.perf_counter() - started
    new_rss_kb = _children_rss_kb()
    started = time.perf_counter()
    subprocess.run([str(jdk.java), *flags, "-XX:+PrintFlagsFinal", "-version"], capture_output=True, check=True)
    old_s = time.perf_counter() - started
    old_rss_kb = _children_rss_kb()
    print(f"flags: {' '.join(flags)} on {jdk.describe()}")
    print(f"{'':28}{'wall s':>10}{'peak RSS MiB':>15}")
    print(f"{'before (JVM pre-touches)':28}{old_s:>10.2f}{old_rss_kb / 1024:>15.0f}")
    print(f"{'now (check_flags)':28}{new_s:>10.2f}{new_rss_kb / 1024:>15.0f}")
    print(f"ratio before/now: {old_s / new_s:.0f}x time; AlwaysPreTouch recorded as "
          f"{check.final_values.get('AlwaysPreTouch')} ({check.origins.get('AlwaysPreTouch')})")


if __name__ == "__main__":
    main()
