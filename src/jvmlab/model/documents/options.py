"""How an experiment was run, as a record: the ``experiment.run_options_json`` column.

The options ``--resume`` repeats (``--until``, ``--max-invocations``, ``--budget``, the
collector overrides), the metric its report compares and why, the JVMs' working directory,
and for an import where its data came from and what it cannot tell. Version 1 is the untyped
map stored before; a minimum-heap search wrote ``"kind": "minheap"`` and its request there,
which its ``minheap`` document holds: version 2 drops them (store migration v8).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from jvmlab.model.documents.base import (
    Document,
    JsonObject,
    mapping,
    opt,
    opt_float,
    opt_int,
    opt_str,
    present,
    strings,
)


@dataclass(frozen=True, slots=True)
class ImportedFrom:
    """An imported experiment's source tool and files."""

    source: str
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RunOptionsRecord(Document):
    """How the experiment was run (None or empty: not given, or not a run of that kind)."""

    KIND = "run_options"
    VERSION = 2

    until_pct: float | None = None
    max_invocations: int | None = None
    budget_s: float | None = None
    collect: tuple[str, ...] = ()  # --collect NAME[=LEVEL]
    no_collect: tuple[str, ...] = ()
    metric: str | None = None
    metric_reason: str | None = None
    workdir: str | None = None  # the JVMs' working directory (relative paths in arguments depend on it)
    imported: ImportedFrom | None = None
    block_order: str | None = None  # "unknown": an import cannot say how its runs were ordered
    unknown: tuple[str, ...] = ()  # what an import cannot tell

    def but(self, **changes: Any) -> RunOptionsRecord:
        """A copy with ``changes``."""
        return replace(self, **changes)

    def body(self) -> JsonObject:
        imported = ({"source": self.imported.source, "files": list(self.imported.files)}
                    if self.imported is not None else None)
        return present({"until_pct": self.until_pct, "max_invocations": self.max_invocations,
                        "budget_s": self.budget_s, "collect": list(self.collect) or None,
                        "no_collect": list(self.no_collect) or None, "metric": self.metric,
                        "metric_reason": self.metric_reason, "workdir": self.workdir, "imported": imported,
                        "block_order": self.block_order, "unknown": list(self.unknown) or None})

    @classmethod
    def decode(cls, data: Any, version: int) -> RunOptionsRecord:
        d = mapping(data)  # version 1's other keys ("kind", a minheap request) are not options
        imported = opt(d.get("imported"), lambda i: ImportedFrom(str(mapping(i)["source"]),
                                                                 strings(mapping(i).get("files") or ())))
        return cls(opt_float(d.get("until_pct")), opt_int(d.get("max_invocations")), opt_float(d.get("budget_s")),
                   strings(d.get("collect") or ()), strings(d.get("no_collect") or ()), opt_str(d.get("metric")),
                   opt_str(d.get("metric_reason")), opt_str(d.get("workdir")), imported,
                   opt_str(d.get("block_order")), strings(d.get("unknown") or ()))
