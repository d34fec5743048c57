"""Regenerate the small real-JVM GC logs used as golden inputs by tests/gclog.

Run: .venv/bin/python tests/data/gclogs/generate.py [--seconds 1]
Each JDK x collector pair gets a detailed log (-Xlog:gc*,safepoint with uptime,level,tags)
and a one-line log (-Xlog:gc). Detailed logs are stored gzipped. The golden JSON summaries in
tests/gclog/golden/ must be refreshed afterwards (pause counts change per run):
.venv/bin/python tests/gclog/test_golden.py --update
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
JDKS = {
    "17": Path("/usr/lib/jvm/java-17-openjdk-amd64"),
    "25": Path("/usr/lib/jvm/temurin-25-jdk-amd64"),
}
# (name, flags) per JDK; on 25 ZGC is generational only.
COLLECTORS = {
    "17": [
        ("g1", ["-XX:+UseG1GC"]),
        ("parallel", ["-XX:+UseParallelGC"]),
        ("serial", ["-XX:+UseSerialGC"]),
        ("zgc", ["-XX:+UseZGC"]),
        ("shenandoah", ["-XX:+UseShenandoahGC"]),
    ],
    "25": [
        ("g1", ["-XX:+UseG1GC"]),
        ("parallel", ["-XX:+UseParallelGC"]),
        ("serial", ["-XX:+UseSerialGC"]),
        ("zgc", ["-XX:+UseZGC"]),
        ("shenandoah", ["-XX:+UseShenandoahGC"]),
        ("shenandoah-gen", ["-XX:+UseShenandoahGC", "-XX:ShenandoahGCMode=generational"]),
    ],
}


def run_one(jdk: str, name: str, flags: list[str], detailed: bool, seconds: int) -> Path | None:
    """Run Alloc.java once and return the log path, or None when the JVM refused the flags."""
    suffix = "details" if detailed else "oneline"
    out = HERE / f"jdk{jdk}-{name}-{suffix}.log"
    out.unlink(missing_ok=True)
    Path(f"{out}.gz").unlink(missing_ok=True)
    xlog = (f"-Xlog:gc*,safepoint:file={out}:uptime,level,tags" if detailed
            else f"-Xlog:gc:file={out}")
    argv = [str(JDKS[jdk] / "bin" / "java"), "-Xmx256m", "-Xms256m", *flags, xlog,
            str(HERE / "Alloc.java"), str(seconds)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0:
        print(f"skip jdk{jdk} {name}: {proc.stderr.strip().splitlines()[:1]}", file=sys.stderr)
        out.unlink(missing_ok=True)
        return None
    if detailed:  # detailed logs are stored gzipped to keep the repository small
        with open(out, "rb") as src, gzip.open(f"{out}.gz", "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        out.unlink()
        return Path(f"{out}.gz")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=1)
    args = parser.parse_args()
    for jdk, collectors in COLLECTORS.items():
        for name, flags in collectors:
            for detailed in (True, False):
                path = run_one(jdk, name, flags, detailed, args.seconds)
                if path:
                    print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
