"""Checks made before anything runs (bad input: one line, exit 2) and the client setup.

A fixed port already taken, a client command that is not found, a client JDK that does not
exist: each is a UserError here. (A non-loopback readiness URL and a phase without a duration
or count are refused when the spec is read.)"""

from __future__ import annotations

import shutil
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.jdk.identify import identify
from jvmlab.model.jdk import JdkInfo
from jvmlab.server.ports import port_taken
from jvmlab.spec.server import Load, Server
from jvmlab.workloads.builtin import prepare_builtin


def check_port(server: Server) -> None:
    if server.port is not None and port_taken(server.port):
        raise UserError(f"[server] port = {server.port} is already taken on 127.0.0.1: stop what holds "
                        f"it, or drop `port` to get a free port per invocation ({{port}})")


def check_clients(load: Load, base_dir: Path) -> None:
    for phase in load.phases:
        if phase.command is None:
            continue
        program = phase.command[0]
        if "{" in program:
            continue
        path = Path(program)
        if "/" in program:
            found = (path if path.is_absolute() else base_dir / path).exists()
        else:
            found = shutil.which(program) is not None
        if not found:
            raise UserError(f"[load] phase {phase.name!r}: client {program!r} not found "
                            f"({'no such file' if '/' in program else 'not on PATH'})")


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


def client_base_for(java: Path, classes: Path) -> tuple[str, ...]:
    """The built-in client's command: its own JVM, small and fixed, never the cell's flags."""
    return (str(java), "-Xms64m", "-Xmx256m", "-XX:+UseParallelGC", "-cp", str(classes), "JvmlabLoad")
