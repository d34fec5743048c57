"""Running a server invocation: start the server through the ordinary executor (so wait4,
the /proc sampler, the GC log and every collector see the server alone) on a background
thread, wait until it is ready, drive the load phases with separate client processes, then
stop it. Every failure (never ready, died under load, refused to stop, a client failed) is
an invocation status with its reason and the right output's tail; the matrix continues.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from jvmlab.collect.base import NullProbe
from jvmlab.execute.protocols import Executor
from jvmlab.model.collected import Collected
from jvmlab.model.documents import ServerDocument, ServerNotesDocument, ServerStopDocument
from jvmlab.model.probe import Probe
from jvmlab.model.process import InvocationPlan, ProcessResult, Status
from jvmlab.plan.prepare import Plan
from jvmlab.server import parsers
from jvmlab.server.clients import ClientRun, phase_argv, run_phase
from jvmlab.server.control import ProcessControl, control_for
from jvmlab.server.measure import load_metrics
from jvmlab.server.ports import free_port
from jvmlab.server.preflight import check, client_base
from jvmlab.server.readiness import Readiness, first_request, rss_bytes, wait_ready
from jvmlab.server.stop import StopOutcome, stop_server
from jvmlab.spec.pattern import BoundedPattern
from jvmlab.spec.server import PORT_PLACEHOLDER, Load, Server

SERVER_COLLECTED = "server_collected"  # ProcessResult.extra key: the Collected of this module
_START_WAIT_S = 30.0


@dataclass(frozen=True)
class ServerSetup:
    """Resolved once per experiment: how to run clients and what the server part says."""

    server: Server
    load: Load
    client_base: tuple[str, ...]  # java -cp <classes> JvmlabLoad (the built-in client)
    client_cwd: Mapping[str, Path] = field(default_factory=dict)  # phase -> its clients' folder (plan/template.py)


class _Watch(NullProbe):
    """Learns the server's pid and start time, and sees its log lines (readiness by log)."""

    def __init__(self, log_regex: str | None) -> None:
        self.pid: int | None = None
        self.t0 = time.perf_counter()
        self.started = threading.Event()
        self.log_seen = threading.Event()
        self._regex = BoundedPattern(log_regex, what="[server] ready_log") if log_regex else None

    def on_start(self, pid: int) -> None:
        self.pid = pid
        self.started.set()

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        # spent (ran out of time on a line): stop waiting, _drive says why
        if self._regex is not None and not self.log_seen.is_set() and (
                self._regex.search_quiet(line) or self._regex.spent):
            self.log_seen.set()

    @property
    def spent(self) -> str | None:
        return self._regex.spent if self._regex is not None else None


class ServerExecutor:
    """Wraps an executor: ``run(plan, probes)`` runs one whole server invocation."""

    def __init__(self, inner: Executor, setup: ServerSetup) -> None:
        self.inner = inner
        self.setup = setup
        self.control = control_for(inner)  # process group (wait4 executor) or process tree (psutil)
        self.name = f"server+{getattr(inner, 'name', 'executor')}"

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult:
        server = self.setup.server
        port = server.port or free_port()
        plan = _with_port(plan, port)
        watch = _Watch(server.ready_log)
        holder: dict[str, ProcessResult] = {}
        thread = threading.Thread(target=lambda: holder.update(r=self.inner.run(plan, [*probes, watch])),
                                  name="jvmlab-server", daemon=True)
        thread.start()
        alive = thread.is_alive
        if not _wait_started(watch, thread):
            thread.join(_START_WAIT_S)
            return holder.get("r") or _lost(plan)
        outcome = _drive(self.setup, plan, port, watch, alive, self.control)
        outcome.collected.documents[ServerDocument.KIND] = ServerDocument(port, watch.pid, server.readiness).to_json()
        def exited(timeout_s: float) -> bool:
            thread.join(timeout_s)
            return not thread.is_alive()

        stop = stop_server(watch.pid or 0, exited,
                           server.stop_command and [_fill(a, port, watch.pid) for a in server.stop_command],
                           server.stop_signal, server.stop_grace, self.control, cwd=plan.cwd)
        thread.join(30.0)
        if thread.is_alive():  # the executor did not return: kill again, never wait forever
            self.control.kill_all(watch.pid or 0)
            thread.join(10.0)
        result = holder.get("r") or _lost(plan)
        return _finish(result, outcome, stop, server)


@dataclass
class _Outcome:
    collected: Collected
    failure: str | None = None
    tail: str | None = None  # a client's output (a failed or unreadable client); None: the server's
    died: bool = False  # the server exited on its own while it should have been serving


def _drive(setup: ServerSetup, plan: InvocationPlan, port: int, watch: _Watch, alive: Callable[[], bool],
           control: ProcessControl) -> _Outcome:
    """Readiness, first request, then each load phase in order."""
    server, load = setup.server, setup.load
    out = Collected()
    ready = Readiness(server.readiness, port, server.ready_log,
                      server.ready_url and _fill(server.ready_url, port, watch.pid), server.ready_status,
                      server.ready_body, server.ready_timeout, server.poll_interval_ms / 1000)
    why = wait_ready(ready, watch.log_seen, alive) or watch.spent
    if why is not None:
        return _Outcome(out, why, died=not alive())
    out.metrics["server.ready_s"] = time.perf_counter() - watch.t0
    url = _first_url(setup, port, watch.pid)
    if url is None:
        out.documents[ServerNotesDocument.KIND] = ServerNotesDocument(
            "not measured: no HTTP URL to ask (set [server] first_request_url or ready_url)").to_json()
    elif first_request(url, server.ready_timeout, alive):
        out.metrics["server.first_request_s"] = time.perf_counter() - watch.t0
    else:
        out.documents[ServerNotesDocument.KIND] = ServerNotesDocument(
            f"not measured: {url} gave no 2xx answer in time").to_json()
    rss = rss_bytes(watch.pid or 0)
    if rss is not None:
        out.metrics["server.rss_at_ready_bytes"] = float(rss)
    reports, runs, measured_s = [], [], 0.0
    for phase in load.phases:
        argvs = [phase_argv(phase, list(setup.client_base), port, phase.path) for _ in range(phase.clients)]
        t0 = time.perf_counter()
        done = run_phase(phase, argvs, plan.artifacts_dir / "load", (phase.duration or 0) + load.client_timeout,
                         dict(plan.env), control, cwd=setup.client_cwd.get(phase.name))
        if not alive():
            return _Outcome(out, f"the server exited during load phase {phase.name!r}", died=True)
        failed = next((c for c in done if not c.ok), None)
        if failed is not None:
            return _Outcome(out, f"load phase {phase.name!r}: {failed.reason}", tail=failed.tail())
        if phase.measured:
            measured_s += time.perf_counter() - t0 if phase.duration is None else phase.duration
            runs.extend(done)
            for client in done:
                report = _parse(load, client)
                if report.problem:
                    return _Outcome(out, f"load phase {phase.name!r}: {report.problem}", tail=client.tail())
                reports.append(report)
    out.merge(load_metrics(reports, runs, measured_s))
    return _Outcome(out)


def _parse(load: Load, client: ClientRun) -> parsers.ClientReport:
    if load.parser == "k6":
        return parsers.parse_k6(client.summary_path)
    text = client.output_path.read_text(errors="replace")
    if load.parser == "wrk":
        return parsers.parse_wrk(text)
    if load.parser == "regex":
        return parsers.parse_regex(text, load.regex or "", load.units)
    return parsers.parse_jvmlab(text)


def _finish(result: ProcessResult, outcome: _Outcome, stop: StopOutcome, server: Server) -> ProcessResult:
    """The server's own result, re-read: a server jvmlab stopped ended as asked (ok)."""
    collected = outcome.collected
    collected.metrics["server.stop_s"] = stop.stop_s
    status, reason = result.status, result.reason
    stopped_by_us = status in (Status.OK, Status.SIGNALED, Status.FAILED) and not outcome.died
    if outcome.failure is not None:
        # A client's failure quotes the client's output (even when it wrote nothing), never the server's.
        whose = "client output" if outcome.tail is not None else "output"
        tail = outcome.tail if outcome.tail is not None else (result.stderr_tail or result.stdout_tail)
        last = [line for line in tail.splitlines() if line.strip()][-3:]
        status = Status.FAILED
        quoted = " | ".join(s.strip()[:200] for s in last) if last else ("(none)" if outcome.tail is not None else "")
        reason = outcome.failure + (f"; {whose}: {quoted}" if quoted else "")
    elif stop.forced:
        status = Status.FAILED
        reason = (f"the server did not stop within {server.stop_grace:g} s of "
                  f"{'its stop command' if server.stop_command else server.stop_signal}; its process group was killed")
    elif result.status == Status.TIMEOUT:
        pass
    elif stopped_by_us:
        status, reason = Status.OK, None
    if stop.detail and status == Status.OK:
        collected.documents[ServerStopDocument.KIND] = ServerStopDocument(stop.detail).to_json()
    extra = {**result.extra, SERVER_COLLECTED: collected}
    return replace(result, status=status, reason=reason, extra=extra)


def _wait_started(watch: _Watch, thread: threading.Thread) -> bool:
    for _ in range(int(_START_WAIT_S / 0.05)):  # bounded
        if watch.started.wait(0.05):
            return True
        if not thread.is_alive():
            return False
    return False


def _first_url(setup: ServerSetup, port: int, pid: int | None) -> str | None:
    server = setup.server
    url = server.first_request_url or server.ready_url
    if url is None and any(p.builtin for p in setup.load.phases):
        url = f"http://127.0.0.1:{port}{next(p.path for p in setup.load.phases if p.builtin)}"
    return _fill(url, port, pid) if url else None


def _fill(text: str, port: int, pid: int | None) -> str:
    return text.replace(PORT_PLACEHOLDER, str(port)).replace("{pid}", str(pid or 0))


def _with_port(plan: InvocationPlan, port: int) -> InvocationPlan:
    return replace(plan, argv=tuple(a.replace(PORT_PLACEHOLDER, str(port)) for a in plan.argv),
                   env={k: v.replace(PORT_PLACEHOLDER, str(port)) for k, v in plan.env.items()})


def _lost(plan: InvocationPlan) -> ProcessResult:
    return ProcessResult(Status.START_FAILED, f"the server did not start: {plan.argv[0]}", None, None, None,
                         None, time.time())


def wrap_server(plan: Plan, inner: Executor) -> Executor:
    """The executor for a plan: for a spec with ``[load]`` (a server under load, docs/servers.md)
    the checks (port, clients) first, then ``inner`` wrapped; any other plan runs on ``inner``."""
    template = plan.cells[0].template  # the server/load parts, read from the spec at plan time
    if template is None or template.load is None:
        return inner
    server = template.server or Server()
    base_dir = plan.spec_path.parent if plan.spec_path is not None else Path.cwd()
    check(server, template.load, plan.workdir or base_dir, template.client_cwd)
    return ServerExecutor(inner, ServerSetup(server, template.load, client_base(template.load, plan.cells[0].jdk),
                                             template.client_cwd))
