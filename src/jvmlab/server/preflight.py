"""Checks made before anything runs (bad input: one line each, exit 2) and the client setup.

``jvmlab check`` and ``jvmlab run`` ask the same :func:`problems`: a fixed port already taken,
no port to be had on 127.0.0.1, a client or stop command that is not found or not executable,
a client JDK that does not exist, a readiness URL off the loopback interface. (The URL and a
phase without a duration or count are refused when the spec is read already; the URL is asked
again here so a spec built in code is checked the same way.)"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from jvmlab.errors import UserError
from jvmlab.jdk.identify import identify
from jvmlab.model.jdk import JdkInfo
from jvmlab.server.ports import free_port, port_taken
from jvmlab.spec.model import Spec
from jvmlab.spec.server import LOOPBACK_HOSTS, PORT_PLACEHOLDER, Load, Server
from jvmlab.workloads.builtin import prepare_builtin


def problems(server: Server, load: Load, base_dir: Path, client_cwd: Mapping[str, Path] | None = None) -> list[str]:
    """Every reason the server part cannot run, one line each, in spec order; [] when none.

    ``base_dir``: the server's folder (its stop command runs there); ``client_cwd``: each
    phase's folder, where its clients run (default: ``base_dir``)."""
    out = [*_port_problems(server), *_url_problems(server)]
    for phase in load.phases:
        if phase.command is not None:
            why = command_problem(phase.command[0], (client_cwd or {}).get(phase.name, base_dir))
            if why:
                out.append(f"[load] phase {phase.name!r}: client {why}")
    if server.stop_command:
        why = command_problem(server.stop_command[0], base_dir)
        if why:
            out.append(f"[server] stop_command: {why}")
    if load.java_home is not None:
        java = Path(load.java_home).expanduser() / "bin" / "java"
        if not (java.is_file() and os.access(java, os.X_OK)):
            out.append(f"[load] java_home = {load.java_home}: no executable bin/java there "
                       f"(the JDK that runs the built-in client)")
    return out


def check(server: Server, load: Load, base_dir: Path, client_cwd: Mapping[str, Path] | None = None) -> None:
    """``run``'s gate: the first problem as a UserError (``check`` prints them all)."""
    found = problems(server, load, base_dir, client_cwd)
    if found:
        raise UserError(found[0])


def _port_problems(server: Server) -> list[str]:
    if server.port is not None:
        if port_taken(server.port):
            return [f"[server] port = {server.port} is already taken on 127.0.0.1: stop what holds "
                    f"it, or drop `port` to get a free port per invocation ({{port}})"]
        return []
    try:
        free_port()
    except OSError as err:
        return [f"no free port on 127.0.0.1 to give the server ({err.strerror or err}): "
                f"is the loopback interface up?"]
    return []


def _url_problems(server: Server) -> list[str]:
    from urllib.parse import urlsplit

    out = []
    for key, url in (("ready_url", server.ready_url), ("first_request_url", server.first_request_url)):
        if url is not None:
            parts = urlsplit(url.replace(PORT_PLACEHOLDER, "1"))
            if parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS:
                out.append(f"[server] {key} = {url!r} is not an http URL on 127.0.0.1")
    return out


def command_problem(program: str, base_dir: Path) -> str | None:
    """Why ``program`` (argv[0] of a client or stop command) cannot start, or None.

    A program with a placeholder (``{port}``) is only known per invocation: not checked."""
    if "{" in program:
        return None
    if "/" not in program:
        return None if shutil.which(program) else f"{program!r} not found (not on PATH)"
    path = Path(program) if Path(program).is_absolute() else base_dir / program
    if not path.exists():
        return f"{program!r} not found (no such file)"
    if not path.is_file() or not os.access(path, os.X_OK):
        return f"{program!r} is not an executable file"
    return None


def client_jdk(load: Load, default: JdkInfo) -> JdkInfo:
    """The JDK running the built-in client: ``[load] java_home``, else the first cell's JDK
    (the same for every cell, so the client is never a factor)."""
    if load.java_home is None:
        return default
    home = Path(load.java_home).expanduser()
    if not (home / "bin" / "java").exists():
        raise UserError(f"[load] java_home = {load.java_home}: no bin/java there")
    return identify(home)


def client_base(load: Load, default: JdkInfo) -> tuple[str, ...]:
    """The built-in generator's command line, compiled into the workload cache once."""
    if not any(p.builtin for p in load.phases):
        return ()
    jdk = client_jdk(load, default)
    built = prepare_builtin("loadgen", jdk)
    return client_base_for(jdk.java, built.classpath)



class PlanLike(Protocol):
    """What the checks read of a prepared plan (``plan.prepare.Plan`` is a layer above: not imported)."""

    @property
    def spec(self) -> Spec: ...

    @property
    def spec_path(self) -> Path | None: ...

    @property
    def workdir(self) -> Path | None: ...

    @property
    def cells(self) -> tuple[Any, ...]: ...  # prepared cells: their template has the clients' folders


def client_base_for(java: Path, classes: Path) -> tuple[str, ...]:
    """The built-in client's command: its own JVM, small and fixed, never the cell's flags."""
    return (str(java), "-Xms64m", "-Xmx256m", "-XX:+UseParallelGC", "-cp", str(classes), "JvmlabLoad")


def plan_problems(plan: PlanLike) -> list[str]:
    """The checks for a prepared plan (what ``jvmlab check`` calls): [] when it has no [load]."""
    spec = plan.spec
    if spec.load is None:
        return []
    base_dir = plan.spec_path.parent if plan.spec_path is not None else Path.cwd()
    template = plan.cells[0].template if plan.cells else None
    load = getattr(template, "load", None) or spec.load  # the template's: its paths resolved at plan time
    return problems(spec.server or Server(), load, plan.workdir or base_dir, getattr(template, "client_cwd", None))


def check_plan(plan: PlanLike, echo_error: Callable[[str], object]) -> str | None:
    """``jvmlab check``'s server hook: every problem as its own line (``echo_error``), the last
    raised as the UserError that makes the exit code 2; else a one-line summary (None without [load])."""
    found = plan_problems(plan)
    for problem in found[:-1]:
        echo_error(f"jvmlab: error: {problem}")
    if found:
        raise UserError(found[-1])
    load = plan.spec.load
    if load is None:
        return None
    server = plan.spec.server or Server()
    port = f"port {server.port} free" if server.port is not None else "a free port per invocation"
    warning = port_warning(plan)
    return (f"server: ready by {server.readiness}, {port} on 127.0.0.1; {len(load.phases)} load "
            f"phase(s), clients found, parser {load.parser}" + (f"\n  warning: {warning}" if warning else ""))


def port_warning(plan: PlanLike) -> str | None:
    """A server given a free port per invocation must be told it: readiness waits on a port
    the server never heard of when no command line (or environment) of a cell has ``{port}``."""
    server = plan.spec.server or Server()
    if plan.spec.load is None or server.port is not None or server.readiness == "log":
        return None
    for pc in plan.cells:
        argv = pc.launch.argv(pc.jdk, list(pc.flags), pc.cell.args)
        env = pc.template.env if pc.template is not None else {}
        if any(PORT_PLACEHOLDER in text for text in (*argv, *dict(env).values(), *dict(pc.cell.env).values())):
            return None
    waits = "its port accepting" if server.readiness == "port" else f"{server.ready_url}"
    return (f"readiness waits for {waits} on a free port per invocation, but no cell's command line or "
            f"environment has {PORT_PLACEHOLDER}: the server cannot know the port; pass it "
            f"(args = [\"--port\", \"{PORT_PLACEHOLDER}\"], or -Dserver.port={PORT_PLACEHOLDER} in jvm_args), "
            f"or set [server] port")
