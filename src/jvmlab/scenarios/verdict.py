"""Which scenario's verdict reads a Summary, and a generic one for anything else."""

from __future__ import annotations

from typing import Any

from jvmlab.scenarios import cds, gc, jmh, largepages, pretouch, ramdisk, server

VERDICTS = {"pretouch": pretouch.verdict, "largepages": largepages.verdict, "gc": gc.verdict,
            "cds": cds.verdict, "ramdisk": ramdisk.verdict, "jmh": jmh.verdict, "server": server.verdict}
NAME_PREFIX = "demo "


def scenario_of(summary: Any) -> str | None:
    """"demo cds: hello x ..." -> "cds" (the names scenario specs are given)."""
    name = summary.experiment.name or ""
    if not name.startswith(NAME_PREFIX):
        return None
    return name.removeprefix(NAME_PREFIX).split(":", 1)[0].strip()


def verdict_for(name: str, summary: Any) -> str:
    if name in ("all", "default") or name not in VERDICTS and name != "minecraft":
        name = scenario_of(summary) or name
    if name == "minecraft":
        return gc.verdict(summary).replace("chunks/s", "chunks/s (Minestom)")
    fn = VERDICTS.get(name)
    return fn(summary) if fn is not None else generic(summary)


def generic(summary: Any) -> str:
    """The Summary's own comparison sentences, joined."""
    if not summary.verdicts:
        return "Only one cell: nothing to compare."
    return " ".join(f"{cell}: {text}" for cell, text in summary.verdicts.items())
