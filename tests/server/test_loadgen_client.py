"""The built-in generator against a server that closes its connections (``Connection: close``,
as Tomcat does every 100 requests): every 2xx answer counts, the client reconnects."""

from __future__ import annotations

import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from jvmlab.jdk.identify import identify
from jvmlab.server.parsers import parse_jvmlab
from jvmlab.server.preflight import client_base_for
from jvmlab.workloads.builtin import prepare_builtin

pytestmark = pytest.mark.jvm

JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")


class _Closing(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    answers: ClassVar[dict[str, int]] = {"/ok": 200, "/missing": 404}

    def do_GET(self) -> None:
        body = b"ok\n"
        self.send_response(self.answers.get(self.path, 500))
        if self.protocol_version == "HTTP/1.1":  # HTTP/1.0: no length, the body ends at the close
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


def _load(path: str, count: int) -> subprocess.CompletedProcess[str]:
    jdk = identify(JDK17)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Closing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        argv = [*client_base_for(jdk.java, prepare_builtin("loadgen", jdk).classpath), "--url",
                f"http://127.0.0.1:{server.server_address[1]}{path}", "--requests", str(count),
                "--connections", "2"]
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    finally:
        server.shutdown()
        server.server_close()


def test_answers_on_closed_connections_count_and_the_client_reconnects() -> None:
    done = _load("/ok", 40)
    assert done.returncode == 0, done.stderr
    report = parse_jvmlab(done.stdout)
    assert report.problem is None
    assert report.histogram is not None and report.histogram.total == 40
    assert report.values["errors"] == 0


def test_a_non_2xx_answer_is_an_error() -> None:
    done = _load("/missing", 10)
    assert done.returncode == 1  # no request succeeded
    assert parse_jvmlab(done.stdout).values["errors"] == 10


def test_http10_answers_without_a_length_end_at_the_close() -> None:
    _Closing.protocol_version = "HTTP/1.0"
    try:
        done = _load("/ok", 12)
    finally:
        _Closing.protocol_version = "HTTP/1.1"
    report = parse_jvmlab(done.stdout)
    assert report.values["errors"] == 0 and report.histogram is not None and report.histogram.total == 12


class _Slow(_Closing):
    """20 ms per answer on one thread: at most ~50 answers per second."""

    def do_GET(self) -> None:
        import time

        time.sleep(0.02)
        super().do_GET()


def _fixed_rate(handler: type[BaseHTTPRequestHandler], rate: int, seconds: int) -> str:
    from http.server import HTTPServer

    jdk = identify(JDK17)
    server = HTTPServer(("127.0.0.1", 0), handler)  # one request at a time
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        argv = [*client_base_for(jdk.java, prepare_builtin("loadgen", jdk).classpath), "--url",
                f"http://127.0.0.1:{server.server_address[1]}/ok", "--duration-s", str(seconds),
                "--connections", "2", "--rate", str(rate), "--max-s", str(seconds + 20)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=90, check=False)
    finally:
        server.shutdown()
        server.server_close()
    return done.stdout


def test_an_open_loop_server_that_fell_behind_is_flagged() -> None:
    """Issue 31 item 6: 983 of 1500 req/s reported a p99 of 1.5 s without a word."""
    from jvmlab.model.hazards import LOAD_FELL_BEHIND
    from jvmlab.server.measure import load_metrics

    report = parse_jvmlab(_fixed_rate(_Slow, 200, 2))
    assert report.problem is None and report.values["target_rps"] == 200
    out = load_metrics([report], [], report.duration_s or 2.0)
    assert out.metrics["load.target_rps"] == 200
    assert out.metrics["load.achieved_share"] < 0.5  # one 20-ms answer at a time: at most ~50 of 200
    assert [h.kind for h in out.hazards] == [LOAD_FELL_BEHIND]


def test_an_open_loop_server_that_kept_up_is_not_flagged() -> None:
    from jvmlab.server.measure import load_metrics

    report = parse_jvmlab(_fixed_rate(_Closing, 10, 2))
    out = load_metrics([report], [], report.duration_s or 2.0)
    assert out.metrics["load.achieved_share"] >= 0.95 and out.hazards == []
