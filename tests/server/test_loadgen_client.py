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
