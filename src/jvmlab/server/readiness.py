"""Waiting for a server: by a log line, by its TCP port accepting, or by an HTTP URL
answering the expected status (and body); then the first successful request. Every wait is
polled with a deadline and gives up at once when the server process has exited.
"""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from jvmlab.server.ports import LOOPBACK, accepts
from jvmlab.spec.pattern import BoundedPattern


@dataclass(frozen=True)
class Readiness:
    """What to wait for (resolved for one invocation: the port is known)."""

    kind: str  # log, port, url
    port: int
    log_regex: str | None = None
    url: str | None = None
    status: int = 200
    body_regex: str | None = None
    timeout_s: float = 60.0
    poll_s: float = 0.05


def http_get(url: str, timeout_s: float = 2.0) -> tuple[int, str] | None:
    """One GET on a loopback URL: (status, body) or None when nothing answered."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    conn = http.client.HTTPConnection(LOOPBACK, parts.port or 80, timeout=timeout_s)
    try:
        conn.request("GET", path, headers={"Host": f"{parts.hostname}:{parts.port}"})
        response = conn.getresponse()
        return response.status, response.read(1 << 20).decode(errors="replace")
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def wait_ready(ready: Readiness, log_seen: threading.Event, alive: Callable[[], bool]) -> str | None:
    """Poll until ready; None when ready, else why not (deadline passed, or the server exited)."""
    deadline = time.monotonic() + ready.timeout_s
    body = BoundedPattern(ready.body_regex, what="[server] ready_body") if ready.body_regex else None
    last = "nothing answered"
    while time.monotonic() < deadline:
        if not alive():
            return f"the server exited before it was ready ({_what(ready)})"
        if ready.kind == "log":
            if log_seen.wait(ready.poll_s):
                return None
            continue
        if ready.kind == "port" and accepts(ready.port):
            return None
        if ready.kind == "url" and ready.url is not None:
            answer = http_get(ready.url)
            if answer is not None:
                status, text = answer
                if status == ready.status and (body is None or body.search_quiet(text)):
                    return None
                if body is not None and body.spent:
                    return body.spent
                last = f"last answer: status {status}"
        time.sleep(ready.poll_s)
    return f"the server was not ready within {ready.timeout_s:g} s ({_what(ready)}; {last})"


def first_request(url: str, deadline_s: float, alive: Callable[[], bool], poll_s: float = 0.02) -> bool:
    """Poll ``url`` until a 2xx answer (True), the deadline, or the server's exit (False)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline and alive():
        answer = http_get(url)
        if answer is not None and 200 <= answer[0] < 300:
            return True
        time.sleep(poll_s)
    return False


def rss_bytes(pid: int) -> int | None:
    """The process's resident set now (VmRSS; psutil's rss, the working set, where there is no
    /proc), or None when it cannot be read."""
    status = Path(f"/proc/{pid}/status")
    if not status.parent.parent.is_dir():  # no /proc (Windows, macOS)
        import psutil

        try:
            return int(psutil.Process(pid).memory_info().rss)
        except psutil.Error:
            return None
    try:
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _what(ready: Readiness) -> str:
    if ready.kind == "log":
        return f"waiting for a line matching {ready.log_regex!r}"
    if ready.kind == "url":
        return f"waiting for {ready.url} to answer {ready.status}"
    return f"waiting for 127.0.0.1:{ready.port} to accept"
