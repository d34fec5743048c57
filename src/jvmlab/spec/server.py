"""Spec records of a server workload: ``[server]`` (readiness, stop) and ``[load]`` (client
phases). The ``[workload]`` table is the server JVM under test; see docs/servers.md.

Everything listens on 127.0.0.1 only: a readiness URL elsewhere is refused here, before any run.
"""

from __future__ import annotations

import re
import signal
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from jvmlab.spec.flags import Seconds, Strict
from jvmlab.spec.hooks import HookFields, bare_strings_need_shell
from jvmlab.spec.pattern import check_compiles

PORT_PLACEHOLDER = "{port}"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")


def check_regex(value: str | None) -> str | None:
    """``value`` unchanged when it compiles as a regex (or is None); else a ValueError saying why."""
    if value is not None:
        check_compiles(value)
    return value


class Server(HookFields):
    """How to know the server is ready, and how to stop it; and the server's own hooks
    (``setup``, ``before_each``, ``after_each``, ``cleanup``; strings with ``shell = true``).

    Readiness is one of ``ready_log`` (a regex on its output), ``ready_url`` (an HTTP GET
    answering ``ready_status`` and, if given, a body matching ``ready_body``) or the TCP port
    accepting (the default). ``port``: a fixed port, or none for a free one per invocation
    (the ``{port}`` placeholder)."""

    port: int | None = Field(default=None, ge=1, le=65535)
    ready_log: str | None = None
    ready_url: str | None = None
    ready_status: int = Field(default=200, ge=100, le=599)
    ready_body: str | None = None
    ready_timeout: Seconds = 60.0
    poll_interval_ms: int = Field(default=50, ge=5, le=10_000)
    first_request_url: str | None = None  # default: ready_url, else http://127.0.0.1:{port}/
    stop_command: list[str] | None = None  # argv; {port} and {pid} are replaced
    stop_signal: str = "SIGTERM"
    stop_grace: Seconds = 10.0
    shell: bool = False  # run the hooks given as strings with /bin/sh -c

    @model_validator(mode="before")
    @classmethod
    def _hook_strings(cls, data: Any) -> Any:
        return bare_strings_need_shell("server", data)

    @field_validator("ready_log", "ready_body")
    @classmethod
    def _regexes(cls, value: str | None) -> str | None:
        return check_regex(value)

    @field_validator("ready_url", "first_request_url")
    @classmethod
    def _loopback(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value.replace(PORT_PLACEHOLDER, "1"))
            if parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS:
                raise ValueError(f"{value!r} is not an http URL on 127.0.0.1: jvmlab only talks to "
                                 f"servers on the loopback interface")
        return value

    @field_validator("stop_signal")
    @classmethod
    def _signal(cls, value: str) -> str:
        name = value.upper() if value.upper().startswith("SIG") else f"SIG{value.upper()}"
        if name not in signal.Signals.__members__:
            raise ValueError(f"unknown signal {value!r} (e.g. SIGTERM, SIGINT)")
        return name

    @field_validator("stop_command")
    @classmethod
    def _argv(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and not value:
            raise ValueError("stop_command must be a non-empty argv list")
        return value

    @model_validator(mode="after")
    def _one_readiness(self) -> Server:
        if self.ready_log is not None and self.ready_url is not None:
            raise ValueError("give one of ready_log or ready_url (or neither: the TCP port accepting)")
        if self.ready_body is not None and self.ready_url is None:
            raise ValueError("ready_body goes with ready_url")
        return self

    @property
    def readiness(self) -> str:
        return "log" if self.ready_log else "url" if self.ready_url else "port"


class Phase(Strict):
    """One client phase: the built-in generator (``client = "jvmlab-load"``, the default) or a
    ``command`` argv, run for a ``duration`` or a ``count`` of requests, by ``clients`` copies
    at once. Only phases with ``measure = true`` give metrics (default: all but ``warmup``)."""

    name: str
    command: list[str] | None = None
    args: list[str] = Field(default_factory=list)
    path: str = "/work"  # the built-in client's request path
    duration: Seconds | None = None
    count: int | None = Field(default=None, ge=1, le=1_000_000_000)
    clients: int = Field(default=1, ge=1, le=64)
    measure: bool | None = None
    cwd: str | None = None  # where its clients run (relative: to the spec's folder); default [load] cwd

    @model_validator(mode="after")
    def _bounded(self) -> Phase:
        if self.duration is None and self.count is None:
            raise ValueError(f"load phase {self.name!r} needs a duration or a count (every phase is bounded)")
        if self.command is not None and not self.command:
            raise ValueError(f"load phase {self.name!r}: command must be a non-empty argv list")
        return self

    @property
    def measured(self) -> bool:
        return self.measure if self.measure is not None else self.name != "warmup"

    @property
    def builtin(self) -> bool:
        return self.command is None


class Load(Strict):
    """The client side: phases in order, how to read metrics from the client's output, and the
    JDK that runs the built-in client (default: the cell's)."""

    phases: list[Phase]
    parser: Literal["jvmlab", "wrk", "k6", "regex"] = "jvmlab"
    regex: str | None = None
    units: dict[str, str] = Field(default_factory=dict)
    java_home: str | None = None
    client_timeout: Seconds = 60.0  # beyond a phase's duration
    cwd: str | None = None  # where clients run (relative: to the spec's folder); default: the spec's folder

    @field_validator("regex")
    @classmethod
    def _named_groups(cls, value: str | None) -> str | None:
        check_regex(value)
        if value is not None and not re.compile(value).groupindex:
            raise ValueError(f"load regex {value!r} needs named groups, e.g. (?P<req_per_s>[0-9.]+)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Load:
        if not self.phases:
            raise ValueError("[load] needs at least one [[load.phases]]")
        names = [p.name for p in self.phases]
        if len(set(names)) != len(names):
            raise ValueError(f"load phase names repeat: {names}")
        if self.parser == "regex" and self.regex is None:
            raise ValueError("parser = \"regex\" needs regex = \"...(?P<name>...)...\"")
        if self.regex is not None and self.parser != "regex":
            raise ValueError("regex goes with parser = \"regex\"")
        if self.parser != "jvmlab" and any(p.builtin for p in self.phases):
            raise ValueError(f"parser = {self.parser!r} reads another client's output: give each phase a command")
        return self
