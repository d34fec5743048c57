"""How long jvmlab's own commands take to answer, beside the interpreter's floor.

Run on a quiet machine (issue 34's targets are medians of ``hyperfine -N``):

    .venv/bin/python bench/cli_latency.py [--runs 10] [--warmup 2]

Each command runs from the same venv as the floors ``python -c pass`` and
``python -c "import typer, rich"``, in a scratch folder holding a small experiment (2 cells x 2
invocations of the built-in hello workload on the first JDK found), so ``results`` and ``report``
read a real store. The table prints each command's median and its ratio to the typer+rich
floor, and PASS/FAIL against its target. hyperfine is the Debian package (installed when missing).
A loaded machine inflates every figure: the script prints the 1-minute load average before it
starts, and the ratios (measured side by side in one run) are what to compare across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from vs_hyperfine import ensure_hyperfine


@dataclass(frozen=True)
class Row:
    label: str
    argv: list[str]
    target_s: float | None  # None: a floor, not a target


def rows(python: str) -> list[Row]:
    jvmlab = [python, "-m", "jvmlab"]
    return [
        Row("python -c pass", [python, "-c", "pass"], None),
        Row("python -c 'import typer, rich'", [python, "-c", "import typer, rich"], None),
        Row("jvmlab --version", [*jvmlab, "--version"], 0.15),
        Row("jvmlab --help", [*jvmlab, "--help"], 0.30),
        Row("jvmlab run --help", [*jvmlab, "run", "--help"], 0.30),
        Row("jvmlab gc analyze --help", [*jvmlab, "gc", "analyze", "--help"], 0.30),
        Row("jvmlab tune --help", [*jvmlab, "tune", "--help"], 0.30),
        Row("jvmlab jdks (cached)", [*jvmlab, "jdks"], 0.35),
        Row("jvmlab metrics", [*jvmlab, "metrics"], 0.35),
        Row("jvmlab results", [*jvmlab, "results"], 0.35),
        Row("jvmlab report (2 cells x 2)", [*jvmlab, "report"], 0.80),
    ]


SPEC = """\
name = "cli latency"
[workload]
builtin = "hello"
[jvms]
jdk = "17"
[factors.gc]
g1 = "-XX:+UseG1GC"
serial = "-XX:+UseSerialGC"
[run]
invocations = 2
warmup = 0
"""


def median_s(hyperfine: str, argv: list[str], runs: int, warmup: int, folder: Path) -> float:
    out = folder / "hf.json"
    cmd = " ".join(_quote(a) for a in argv)
    subprocess.run([hyperfine, "-N", "-w", str(warmup), "-r", str(runs), "--export-json", str(out), cmd],
                   cwd=folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return float(json.loads(out.read_text())["results"][0]["median"])


def _quote(arg: str) -> str:
    # hyperfine -N splits its command as a shell would, without running one.
    return "'" + arg.replace("'", "'\"'\"'") + "'" if any(c in arg for c in " '\"") else arg


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    hyperfine = ensure_hyperfine()
    python = sys.executable
    print(f"1-min load average at start: {os.getloadavg()[0]:.2f} (quiet: < 0.3)")
    with tempfile.TemporaryDirectory(prefix="jvmlab-cli-latency-") as tmp:
        folder = Path(tmp)
        (folder / "s.toml").write_text(SPEC)
        subprocess.run([python, "-m", "jvmlab", "run", "s.toml"], cwd=folder, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([python, "-m", "jvmlab", "jdks"], cwd=folder, check=True, stdout=subprocess.DEVNULL)
        floor = None
        failed = 0
        print(f"{'command':34} {'median':>9} {'x floor':>8} {'target':>8}  verdict")
        for row in rows(python):
            med = median_s(hyperfine, row.argv, args.runs, args.warmup, folder)
            if row.label.startswith("python -c 'import"):
                floor = med
            ratio = f"{med / floor:.2f}" if floor else "-"
            if row.target_s is None:
                verdict, target = "(floor)", "-"
            else:
                verdict = "PASS" if med <= row.target_s else "FAIL"
                failed += verdict == "FAIL"
                target = f"{row.target_s:.2f} s"
            print(f"{row.label:34} {med:8.3f}s {ratio:>8} {target:>8}  {verdict}", flush=True)
    print("all targets met" if not failed else f"{failed} target(s) missed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
