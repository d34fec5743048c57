"""jvmlab's built-in load generator against wrk, and coordinated omission made visible.

Run:  .venv/bin/python bench/loadgen.py [--seconds 8] [--connections 4] [--rounds 3]
          [--jdk /usr/lib/jvm/java-17-openjdk-amd64]

1. Throughput: the built-in server (JvmlabHttpServer), then wrk (Debian package `wrk`,
   installed with apt-get here if missing) and jvmlab's generator in closed loop, each for the
   same seconds at the same connection count against the same server. Target: jvmlab's
   throughput within 10% of wrk's (ratio printed).
2. Coordinated omission: a server that stalls 200 ms every 2 s. jvmlab's generator at a fixed
   rate (latency from each request's intended start) against its closed loop and wrk (latency
   from the actual send): the fixed-rate p99.9 must show the stall (>= ~100 ms) while the
   closed-loop ones under-report it. Both are printed side by side.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src")]

from jvmlab.jdk.identify import identify  # noqa: E402
from jvmlab.server.histogram import Histogram  # noqa: E402
from jvmlab.server.parsers import parse_jvmlab, parse_wrk  # noqa: E402
from jvmlab.server.ports import accepts, free_port  # noqa: E402
from jvmlab.workloads.builtin import prepare_builtin  # noqa: E402


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("wrk not found: installing the Debian package (apt-get install -y wrk)", flush=True)
    subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], check=False, stdout=subprocess.DEVNULL)
    found = shutil.which("wrk")
    if not found:
        subprocess.run(["apt-get", "update", "-q"], check=False, stdout=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], check=True, stdout=subprocess.DEVNULL)
        found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk could not be installed")
    return found


class Server:
    """The built-in server on a free loopback port, stopped by pid at the end."""

    def __init__(self, java: str, classes: Path, extra: list[str]) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen([java, "-Xms512m", "-Xmx512m", "-XX:+UseParallelGC", "-cp", str(classes),
                                      "JvmlabHttpServer", "--port", str(self.port), "--threads", "4", *extra],
                                     stdout=subprocess.DEVNULL, start_new_session=True)
        for _ in range(200):
            if accepts(self.port):
                return
            time.sleep(0.05)
        raise SystemExit("the server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def run_jvmlab(base: list[str], port: int, seconds: float, connections: int, rate: float) -> tuple[float, Histogram]:
    out = subprocess.run([*base, "--url", f"http://127.0.0.1:{port}/work", "--duration-s", str(seconds),
                          "--connections", str(connections), "--rate", str(rate)],
                         capture_output=True, text=True, timeout=seconds + 120, check=True).stdout
    report = parse_jvmlab(out)
    assert report.histogram is not None and report.duration_s
    return report.values["requests"] / report.duration_s, report.histogram


def run_wrk(wrk: str, port: int, seconds: float, connections: int) -> dict[str, float]:
    out = subprocess.run([wrk, "--latency", "-t", str(connections), "-c", str(connections), "-d",
                          f"{seconds:g}s", f"http://127.0.0.1:{port}/work"],
                         capture_output=True, text=True, timeout=seconds + 120, check=True).stdout
    return parse_wrk(out).values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jdk", type=Path, default=Path("/usr/lib/jvm/java-17-openjdk-amd64"))
    args = parser.parse_args()
    wrk = ensure_wrk()
    jdk = identify(args.jdk)
    server_classes = prepare_builtin("httpserver", jdk).classpath
    base = [str(jdk.java), "-Xmx256m", "-XX:+UseParallelGC", "-cp", str(prepare_builtin("loadgen", jdk).classpath),
            "JvmlabLoad"]
    s, c = args.seconds, args.connections

    server = Server(str(jdk.java), server_classes, [])
    wrk_rps, jvmlab_rps = [], []
    try:
        run_jvmlab(base, server.port, 5, c, 0)  # warm the server's JIT once for both clients
        for _ in range(args.rounds):  # alternated, so a drifting machine hurts both alike
            w = run_wrk(wrk, server.port, s, c)
            wrk_rps.append(w["throughput_rps"])
            j_rps, _j_hist = run_jvmlab(base, server.port, s, c, 0)
            jvmlab_rps.append(j_rps)
    finally:
        server.stop()
    print(f"1. throughput, {c} connections, {s:g} s x {args.rounds} alternated rounds, closed loop, same server:")
    print(f"   wrk        median {statistics.median(wrk_rps):10.0f} req/s   rounds {[round(x) for x in wrk_rps]}")
    print(f"   jvmlab     median {statistics.median(jvmlab_rps):10.0f} req/s   rounds {[round(x) for x in jvmlab_rps]}")
    ratio = statistics.median(jvmlab_rps) / statistics.median(wrk_rps)
    print(f"   ratio jvmlab/wrk = {ratio:.3f}  (target 0.90 .. 1.10: {'met' if 0.9 <= ratio <= 1.1 else 'NOT met'})")

    stall = Server(str(jdk.java), server_classes, ["--stall-ms", "200", "--stall-every-ms", "2000"])
    try:
        closed_rps, closed = run_jvmlab(base, stall.port, s, c, 0)
        # Half the closed-loop rate: the server keeps up between stalls.
        rate = max(100.0, min(2000.0, closed_rps * 0.5))
        fixed_rps, fixed = run_jvmlab(base, stall.port, s, c, rate)
        w2 = run_wrk(wrk, stall.port, s, c)
    finally:
        stall.stop()
    print(f"2. server stalling 200 ms every 2 s, {c} connections, {s:g} s:")
    for label, hist, rps in (("jvmlab fixed-rate", fixed, fixed_rps), ("jvmlab closed-loop", closed, closed_rps)):
        p999 = (hist.percentile_us(99.9) or 0) / 1000
        p99 = (hist.percentile_us(99) or 0) / 1000
        print(f"   {label:20s} {rps:8.0f} req/s   p99 {p99:8.2f} ms   p99.9 {p999:8.2f} ms")
    print(f"   {'wrk (closed loop)':20s} {w2['throughput_rps']:8.0f} req/s   p99 {w2.get('latency_p99_ms', 0):8.2f} ms"
          f"   (wrk prints no p99.9)")
    fixed_p999 = (fixed.percentile_us(99.9) or 0) / 1000
    closed_p999 = (closed.percentile_us(99.9) or 0) / 1000
    print(f"   fixed-rate p99.9 / closed-loop p99.9 = {fixed_p999 / max(closed_p999, 1e-9):.2f}  "
          f"(stall shown by fixed rate: {'yes' if fixed_p999 >= 100 else 'NO'})")


if __name__ == "__main__":
    main()
