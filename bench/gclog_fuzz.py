"""Full fuzz run of the GC log analyzer: mutated real logs must never raise or hang.

Run:  .venv/bin/python bench/gclog_fuzz.py --cases 10000 [--seed 1]

Each case is a seeded mutation (truncation, byte flips, dropped/duplicated/shuffled
lines, concatenation) of the project's own logs and ../shared/gclogs; a UserError
("not a GC log") is an allowed outcome, any other exception or a case slower than
--limit-s is a failure. Prints cases tried and failures (with seeds to replay).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]

from gclog.fuzzing import mutate, source_logs  # noqa: E402
from jvmlab.errors import UserError  # noqa: E402
from jvmlab.gclog import analyze_paths  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit-s", type=float, default=10.0, help="a case slower than this is a hang")
    args = parser.parse_args()
    sources = source_logs()
    failures = user_errors = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.log"
        for case in range(args.cases):
            rng = random.Random(args.seed * 1_000_003 + case)
            path.write_bytes(mutate(rng, sources))
            t = time.perf_counter()
            try:
                for summary in analyze_paths([path]):
                    summary.to_json()
            except UserError:
                user_errors += 1
            except Exception:  # noqa: BLE001 - counting every crash is the point
                failures += 1
                print(f"case {case} (seed {args.seed}): crash\n{traceback.format_exc()}", file=sys.stderr)
            if time.perf_counter() - t > args.limit_s:
                failures += 1
                print(f"case {case} (seed {args.seed}): took {time.perf_counter() - t:.1f} s", file=sys.stderr)
    print(f"cases tried: {args.cases}  failures: {failures}  not-a-GC-log: {user_errors}  "
          f"time: {time.perf_counter() - started:.0f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
