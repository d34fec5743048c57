"""Time `jvmlab demo all` (the five classic scenarios) end to end.

Run:  .venv/bin/python bench/scenarios_all.py [--quick] [--store PATH]

Prints the elapsed wall time of the whole suite and its ratio to the target (15 minutes in
full mode, 2 minutes per scenario in quick mode), measured in this one run. The reports and
verdicts of `jvmlab demo all` go to the terminal as they come.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_FULL_S = 15 * 60.0
TARGET_QUICK_S = 5 * 2 * 60.0  # five scenarios, at most about 2 minutes each
HARD_LIMIT_S = 3 * 3600.0  # never hang a bench run forever


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="time `jvmlab demo all --quick`")
    parser.add_argument("--store", help="SQLite store to use (default: a temporary file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jvmlab-bench-") as tmp:
        store = args.store or str(Path(tmp) / "bench.db")
        argv = [sys.executable, "-m", "jvmlab", "demo", "all", "--store", store] + (["--quick"] if args.quick else [])
        started = time.monotonic()
        code = subprocess.run(argv, timeout=HARD_LIMIT_S, check=False).returncode
        elapsed = time.monotonic() - started
    target = TARGET_QUICK_S if args.quick else TARGET_FULL_S
    mode = "quick" if args.quick else "full"
    print(f"\njvmlab demo all ({mode}): {elapsed:.0f} s elapsed, exit code {code}; "
          f"target {target:.0f} s; elapsed/target = {elapsed / target:.2f}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
