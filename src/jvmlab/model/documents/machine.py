"""Documents about the process and the machine around one invocation: a server's address and
how it stopped (``server``, ``server_notes``, ``server_stop``), the cgroup limits it ran in
and what the JVM believed about them (``limits``, ``jvm_view``), and whether each requested
flag took effect, with the JVM's warnings (``flag_effect``, ``jvm_warnings``).

Version 1 is the layout written before documents had versions; ``flag_effect`` and
``jvm_warnings`` were bare lists then, and are objects now (``effects``, ``lines``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from jvmlab.model.documents.base import Document, JsonObject, mapping, opt_float, opt_int, strings


@dataclass(frozen=True, slots=True)
class ServerDocument(Document):
    """Where a server workload listened (loopback port), its pid and how readiness was judged."""

    KIND = "server"

    port: int
    pid: int | None
    readiness: str

    def body(self) -> JsonObject:
        return {"port": self.port, "pid": self.pid, "readiness": self.readiness}

    @classmethod
    def decode(cls, data: Any, version: int) -> ServerDocument:
        d = mapping(data)
        return cls(int(d["port"]), opt_int(d.get("pid")), str(d["readiness"]))


@dataclass(frozen=True, slots=True)
class ServerNotesDocument(Document):
    """Why a server metric was not measured (stored under the metric's short name)."""

    KIND = "server_notes"

    first_request_why: str  # why server.first_request_s was not measured

    def body(self) -> JsonObject:
        return {"first_request_s": self.first_request_why}

    @classmethod
    def decode(cls, data: Any, version: int) -> ServerNotesDocument:
        return cls(str(mapping(data)["first_request_s"]))


@dataclass(frozen=True, slots=True)
class ServerStopDocument(Document):
    """What happened when a server that ran well was stopped (a note, not a failure)."""

    KIND = "server_stop"

    detail: str

    def body(self) -> JsonObject:
        return {"detail": self.detail}

    @classmethod
    def decode(cls, data: Any, version: int) -> ServerStopDocument:
        return cls(str(mapping(data)["detail"]))


@dataclass(frozen=True, slots=True)
class LimitsDocument(Document):
    """The cgroup limits one invocation ran in (None: not limited) and its OOM kills (None:
    the group did not say)."""

    KIND = "limits"

    cpus: float | None
    memory_bytes: int | None
    cpu_mode: str  # quota or cpuset
    cgroup_version: int
    oom_kills: int | None

    def body(self) -> JsonObject:
        return asdict(self)

    @classmethod
    def decode(cls, data: Any, version: int) -> LimitsDocument:
        d = mapping(data)
        return cls(opt_float(d.get("cpus")), opt_int(d.get("memory_bytes")), str(d.get("cpu_mode") or "quota"),
                   int(d["cgroup_version"]), opt_int(d.get("oom_kills")))


@dataclass(frozen=True, slots=True)
class JvmViewDocument(Document):
    """What the JVM believed inside the limits (machine/limits.py reads it); None where it did
    not say."""

    KIND = "jvm_view"

    active_processors: int | None
    max_heap_bytes: int | None
    memory_limit_bytes: int | None
    active_processor_count_flag: int | None  # -XX:ActiveProcessorCount (-1: not overridden)
    container_lines: tuple[str, ...]

    def body(self) -> JsonObject:
        return {"active_processors": self.active_processors, "max_heap_bytes": self.max_heap_bytes,
                "memory_limit_bytes": self.memory_limit_bytes,
                "active_processor_count_flag": self.active_processor_count_flag,
                "container_lines": list(self.container_lines)}

    @classmethod
    def decode(cls, data: Any, version: int) -> JvmViewDocument:
        d = mapping(data)
        return cls(opt_int(d.get("active_processors")), opt_int(d.get("max_heap_bytes")),
                   opt_int(d.get("memory_limit_bytes")), opt_int(d.get("active_processor_count_flag")),
                   strings(d.get("container_lines") or ()))


@dataclass(frozen=True, slots=True)
class FlagEvidence:
    """What is known about one requested flag; ``in_effect`` None means not checked."""

    flag: str
    in_effect: bool | None
    evidence: str

    def to_json(self) -> JsonObject:
        return {"flag": self.flag, "in_effect": self.in_effect, "evidence": self.evidence}

    @classmethod
    def decode(cls, data: Any) -> FlagEvidence:
        d = mapping(data)
        in_effect = d.get("in_effect")
        if in_effect is not None and not isinstance(in_effect, bool):
            raise TypeError(f"in_effect is {in_effect!r}, not true, false or null")
        return cls(str(d["flag"]), in_effect, str(d.get("evidence") or ""))


@dataclass(frozen=True, slots=True)
class FlagEffectDocument(Document):
    """Per requested ``-XX`` flag of the cell: did it take effect, and the evidence."""

    KIND = "flag_effect"

    effects: tuple[FlagEvidence, ...]

    def body(self) -> JsonObject:
        return {"effects": [e.to_json() for e in self.effects]}

    @classmethod
    def decode(cls, data: Any, version: int) -> FlagEffectDocument:
        found = mapping(data)["effects"] if isinstance(data, dict) else data
        if not isinstance(found, list):
            raise TypeError(f"expected a list of flags, found {type(found).__name__}")
        return cls(tuple(FlagEvidence.decode(e) for e in found))


@dataclass(frozen=True, slots=True)
class JvmWarningsDocument(Document):
    """The JVM's warning lines of one invocation (stdout, stderr and the GC log; each cut at
    300 characters, at most 100)."""

    KIND = "jvm_warnings"

    lines: tuple[str, ...]

    def body(self) -> JsonObject:
        return {"lines": list(self.lines)}

    @classmethod
    def decode(cls, data: Any, version: int) -> JvmWarningsDocument:
        found = mapping(data)["lines"] if isinstance(data, dict) else data
        if not isinstance(found, list) or not all(isinstance(line, str) for line in found):
            raise TypeError("expected a list of lines")
        return cls(strings(found))

