"""`jvmlab export`: the experiment as JSON, CSV, Markdown or hyperfine's --export-json.

* ``json``: jvmlab's full, versioned document (``schema: jvmlab.export/1``): the summary,
  every measured invocation with every measure and metric, and the metric registry
  entries used. Output tails are left out (they stay in the store).
* ``csv``: one row per invocation, one column per measure and per metric (empty = not
  measured).
* ``markdown``: the summary table plus verdicts and warnings.
* ``hyperfine``: hyperfine's schema (``results[]`` with ``command``, ``mean``, ``stddev``,
  ``median``, ``user``, ``system``, ``min``, ``max``, ``times``, ``exit_codes``,
  ``memory_usage_byte``, ``parameters``), times in seconds, from the successful
  invocations' wall time, so scripts written for hyperfine read it.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import statistics
from collections.abc import Callable
from typing import Any

from jvmlab.errors import UserError, did_you_mean
from jvmlab.model.stored import PROCESS_METRICS, StoredCell, StoredInvocation
from jvmlab.report.jmh import jmh_table, markdown_jmh
from jvmlab.report.nodes import nodes_json
from jvmlab.report.page import json_safe
from jvmlab.report.summary import Summary, cell_columns

FORMATS = ("json", "csv", "markdown", "hyperfine")
EXPORTED_BY = "jvmlab"  # the hyperfine document's marker (importers/hyperfine.py reads it)
SCHEMA = "jvmlab.export/1"
_MEASURES = ("wall_s", "user_s", "sys_s", "cpu_s", "max_rss_bytes", "minor_faults", "major_faults",
             "vol_ctx_switches", "invol_ctx_switches", "ready_s")
_IDENTITY = ("invocation_id", "experiment_id", "cell", "jvm", "block", "position", "node", "worker", "started_at",
             "status", "reason", "exit_code", "signal")


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise UserError(f"unknown export format {fmt!r}{did_you_mean(fmt, FORMATS)}; "
                        f"choose one of {', '.join(FORMATS)}")
    return fmt


def export_text(summary: Summary, fmt: str) -> str:
    """The experiment in ``fmt`` (one of :data:`FORMATS`) as text."""
    check_format(fmt)
    if fmt == "markdown":
        jmh = jmh_table(summary)
        return markdown(summary) + ("" if jmh is None else "\n" + markdown_jmh(jmh))
    cells = {cs.cell.id: cs.cell for cs in summary.cells}
    invocations = list(summary.invocations)
    if fmt == "csv":
        return to_csv(summary, cells, invocations)
    doc = hyperfine(cells, invocations) if fmt == "hyperfine" else full_json(summary, cells, invocations)
    return json.dumps(json_safe(doc), indent=2, default=str, allow_nan=False) + "\n"


def measure(inv: StoredInvocation, name: str) -> float | int | None:
    """A process measure as stored (counts stay integers)."""
    return inv.cpu_s if name == "cpu_s" else getattr(inv, name)


def _metric_names(invocations: list[StoredInvocation]) -> list[str]:
    return sorted({m for inv in invocations for m in inv.metrics})


def placement(summary: Summary) -> Callable[[StoredInvocation], tuple[str | None, str | None]]:
    """Where each invocation ran, as (node, worker): the host stored with the invocation (schema
    v6) and, on a cluster, the Dask worker. Rows stored before v6 fall back to the node check's
    fingerprint of that worker, or on one machine to the experiment's host. None when the store
    does not know (an import)."""
    host = summary.experiment.fingerprint.get("hostname")
    records = summary.results.nodes if summary.results is not None else None
    prints = records.fingerprints if records is not None else {}

    def where(inv: StoredInvocation) -> tuple[str | None, str | None]:
        if inv.host is not None:
            return inv.host, inv.node
        if inv.node is None:
            return (str(host) if host else None), None
        return str((prints.get(inv.node) or {}).get("host") or inv.node), inv.node

    return where


def invocation_record(inv: StoredInvocation, cell: StoredCell, experiment_id: int,
                      where: tuple[str | None, str | None] = (None, None)) -> dict[str, Any]:
    return {
        "invocation_id": inv.id, "experiment_id": experiment_id, "cell": cell.name, "jvm": cell.jvm,
        "levels": cell.levels, "block": inv.block, "position": inv.position, "node": where[0], "worker": where[1],
        "started_at": inv.started_at,
        "status": inv.status, "reason": inv.reason, "exit_code": inv.exit_code, "signal": inv.signal,
        **{m: measure(inv, m) for m in _MEASURES}, "argv": inv.argv, "metrics": dict(sorted(inv.metrics.items())),
    }


def full_json(summary: Summary, cells: dict[int, StoredCell], invocations: list[StoredInvocation]) -> dict[str, Any]:
    names = list(PROCESS_METRICS) + [m for m in _metric_names(invocations) if m not in PROCESS_METRICS]
    registry = summary.metrics
    where = placement(summary)
    return {
        "schema": SCHEMA,
        "summary": summary.to_json(),
        "spec_text": summary.experiment.spec_text,
        "command_line": summary.experiment.command_line,
        "cells": [{"name": c.name, "jvm": c.jvm, "jdk": c.jdk, "levels": c.levels, "flags": c.flags,
                   "requested_flags": c.requested_flags, "argv": c.argv} for c in cells.values()],
        "invocations": [invocation_record(i, cells[i.cell_id], summary.experiment.id, where(i)) for i in invocations],
        "metrics": {m: {"unit": registry.get(m).unit, "lower_is_better": registry.get(m).lower_is_better,
                        "description": registry.get(m).description} for m in names},
        **({"nodes": nodes} if (nodes := nodes_json(summary)) is not None else {}),
    }


def to_csv(summary: Summary, cells: dict[int, StoredCell], invocations: list[StoredInvocation]) -> str:
    factors = sorted({f for c in cells.values() for f in c.levels})
    metric_names = _metric_names(invocations)
    header = [*_IDENTITY, *(f"level.{f}" for f in factors), *_MEASURES, *metric_names]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    where = placement(summary)
    for inv in invocations:
        cell = cells[inv.cell_id]
        rec = invocation_record(inv, cell, summary.experiment.id, where(inv))
        row = [rec[k] for k in _IDENTITY] + [cell.levels.get(f, "") for f in factors]
        row += [measure(inv, m) for m in _MEASURES] + [inv.metrics.get(m) for m in metric_names]
        writer.writerow(["" if v is None else _csv_value(v) for v in row])
    return buf.getvalue()


def _csv_value(v: Any) -> Any:
    return repr(v) if isinstance(v, float) else v


def _stats(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "stddev": None, "median": None, "min": None, "max": None}
    return {"mean": statistics.fmean(values), "stddev": statistics.stdev(values) if len(values) > 1 else None,
            "median": statistics.median(values), "min": min(values), "max": max(values)}


def hyperfine(cells: dict[int, StoredCell], invocations: list[StoredInvocation]) -> dict[str, Any]:
    """hyperfine's --export-json document: one result per cell, successful invocations only.
    ``parameters`` is what hyperfine writes there: a scan's (or a spec factor's) name -> value,
    left out when there is none; the one-liner's ``cmd`` factor names commands, which hyperfine
    keeps in ``command`` only. The cell's own name, JVM and levels go under ``jvmlab``."""
    from jvmlab.spec.oneliner import CMD_FACTOR

    several_jvms = len({c.jvm for c in cells.values()}) > 1
    results = []
    for cell in cells.values():
        ok = [i for i in invocations if i.cell_id == cell.id and i.status == "ok" and i.wall_s is not None]
        times = [float(i.wall_s) for i in ok if i.wall_s is not None]
        stats = _stats(times)
        users = [i.user_s for i in ok if i.user_s is not None]
        systems = [i.sys_s for i in ok if i.sys_s is not None]
        result: dict[str, Any] = {
            "command": shlex.join(cell.argv) if cell.argv else cell.name,
            "mean": stats["mean"], "stddev": stats["stddev"], "median": stats["median"],
            "user": statistics.fmean(users) if users else None,
            "system": statistics.fmean(systems) if systems else None,
            "min": stats["min"], "max": stats["max"], "times": times,
            "exit_codes": [i.exit_code for i in ok],
        }
        parameters = {**({"jvm": cell.jvm} if several_jvms else {}),
                      **{factor: level for factor, level in cell.levels.items() if factor != CMD_FACTOR}}
        if parameters:
            result["parameters"] = parameters
        result["jvmlab"] = {"cell": cell.name, "jvm": cell.jvm, "levels": dict(cell.levels)}
        if all(i.max_rss_bytes is not None for i in ok):
            result["memory_usage_byte"] = [int(i.max_rss_bytes or 0) for i in ok]
        results.append(result)
    # hyperfine's readers ignore the extra keys; `jvmlab import hyperfine` reads `jvmlab` to take each
    # cell's name and JVM back (not from the command line), so export -> import round-trips.
    return {"results": results, "exported_by": EXPORTED_BY}


def _md(text: str) -> str:
    """Markdown table cell: pipes escaped, no line breaks."""
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(summary: Summary) -> str:
    """The cells table in Markdown, in the notation of the terminal and HTML tables."""
    m = summary.metric
    columns = cell_columns(summary)
    keys = ["n", "failed", "mean ± sd", "median", "95% CI of mean", "vs baseline [95% CI]"]
    lines = [f"## Experiment {summary.experiment.id}: {_md(summary.experiment.name)}", "",
             f"Metric `{m}`, baseline `{_md(summary.baseline or '-')}`.", "",
             f"| cell | n | failed | {m} mean ± sd | median | 95% CI of mean | vs baseline [95% CI] |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {_md(cs.cell.name)} | " + " | ".join(columns[k][i] for k in keys) + " |"
              for i, cs in enumerate(summary.cells)]
    if summary.verdicts:
        lines += ["", "**Verdicts**", ""] + [f"- {_md(v)}" for v in summary.verdicts.values()]
    if summary.hazards:
        lines += ["", "**Warnings**", ""]
        lines += [f"- [{h.kind}] {_md(h.detail)}" + (f" (hint: {_md(h.hint)})" if h.hint else "")
                  for h in summary.hazards]
    return "\n".join(lines) + "\n"
