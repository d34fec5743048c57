"""Reading a Flight Recording: jvmlab's own reader against the JDK's ``jfr print --json``, on the
same files, side by side (read and digested into the jfr metrics and stacks, each way).

    .venv/bin/python bench/jfr_read.py [--repeat 5] [--seconds 6] [FILE.jfr ...]

Without files it records the built-in ``chunkgen`` (2 threads, 256 MB heap) for
``--seconds`` with the collector's ``default`` and ``profile`` settings on JDK 17 and 25
(the JDKs of this machine). Each file is read ``--repeat`` times each way, alternating, ours cold (the
metadata cache emptied first: the later invocations of a cell, same JDK, reuse it and read faster);
printed: the file's size, the events read, the median time of each way, the ratio, and
whether both ways give the same metrics (counts exactly, times within 1e-6 relative).
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jvmlab.collect.jfr import recording_args
from jvmlab.collect.jfr_binary import forget_metadata
from jvmlab.collect.jfr_parse import digest, digest_events, jfr_tool, print_json
from jvmlab.collect.jfr_read import read_recording
from jvmlab.jdk.identify import identify
from jvmlab.workloads.builtin import prepare_builtin

JDKS = ("/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/temurin-25-jdk-amd64")


def record(jdk_home: str, settings: str, seconds: float, folder: Path) -> Path:
    """One chunkgen run with the jfr collector's flags; the recording's path."""
    jdk = identify(jdk_home)
    built = prepare_builtin("chunkgen", jdk)
    path = folder / f"jdk{jdk.feature}-{settings}.jfr"
    argv = [str(jdk.java), "-Xmx256m", *recording_args(jdk.feature, settings, path), "-cp", str(built.classpath),
            built.main_class, "--threads", "2", "--seconds", str(seconds)]
    subprocess.run(argv, check=True, capture_output=True, timeout=600)
    return path


def same(a: dict[str, float], b: dict[str, float]) -> bool:
    return set(a) == set(b) and all(math.isclose(a[k], b[k], rel_tol=1e-6, abs_tol=1e-6) for k in a)


def bench(path: Path, tool: Path, repeat: int) -> None:
    ours_s, tool_s = [], []
    for _ in range(repeat):
        forget_metadata()  # cold: as the first invocation of a cell (later ones reuse the types)
        t0 = time.perf_counter()
        events = read_recording(path, tool)
        ours = digest_events(events.by_type)
        t1 = time.perf_counter()
        ref = digest(print_json(tool, path))
        t2 = time.perf_counter()
        ours_s.append(t1 - t0)
        tool_s.append(t2 - t1)
    count = sum(len(v) for v in events.by_type.values())
    mine, theirs = statistics.median(ours_s), statistics.median(tool_s)
    print(f"{path.name:24} {path.stat().st_size / 1024:8.0f} KiB {count:7d} events  jvmlab {mine:6.3f} s  "
          f"jfr print {theirs:6.3f} s  x{theirs / mine:5.1f}  same metrics: "
          f"{'yes' if same(ours.metrics, ref.metrics) and ours.cpu_stacks == ref.cpu_stacks else 'NO'}"
          + (f"  (fallbacks: {events.fallbacks})" if events.fallbacks else ""), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--jdk", default=JDKS[-1], help="whose jfr tool reads the given files")
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"load average {load}; median of {args.repeat} reads each way, alternating")
    if args.files:
        for path in args.files:
            bench(path, jfr_tool(Path(args.jdk)), args.repeat)
        return
    with tempfile.TemporaryDirectory(prefix="jvmlab-jfr-read-") as tmp:
        for home in JDKS:
            if not Path(home).is_dir():
                print(f"{home}: not here, skipped", file=sys.stderr)
                continue
            for settings in ("default", "profile"):
                bench(record(home, settings, args.seconds, Path(tmp)), jfr_tool(Path(home)), args.repeat)


if __name__ == "__main__":
    main()
