"""`jvmlab gc advise`: a log's findings turned into a derived spec, a spec record like any other.

The derived spec is the advised cell alone (its JVM, its flags folded into the workload's
``jvm_args``) with one factor, ``gcfix``: the level ``current`` adds nothing, each candidate
fix is a level, and ``combined`` holds one fix of every group when two or more groups are
compatible. ``current`` is the baseline, so every verdict is "this fix against the flags you
run now". The spec text stored with the experiment is the original text with one comment
line that records the derivation (the records are what runs; the text is provenance), as
the minimum-heap study stores its request.

With ``--tune`` the same candidates become a ``[tune]`` space instead: one categorical
parameter per group (``off`` or one of its fixes), the current flags as the tuner's baseline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jvmlab.errors import UserError
from jvmlab.gclog.findings_model import Finding
from jvmlab.spec.model import Level, Matrix, Spec

FACTOR = "gcfix"
CURRENT = "current"
COMBINED = "combined"
_OPTION = re.compile(r"^-XX:[+-]?(?P<xx>[A-Za-z0-9_]+)|^-(?P<x>Xm[xsn]|Xss|Xlog)")


@dataclass(frozen=True)
class FixLevel:
    """One level of ``gcfix``: its name, the flags it adds, and the findings it answers."""

    name: str
    flags: tuple[str, ...]
    finding_ids: tuple[str, ...]
    reasons: tuple[str, ...]
    group: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "flags": list(self.flags), "findings": list(self.finding_ids),
                "reasons": list(self.reasons), "group": self.group}


def option_of(flag: str) -> str:
    """The option a flag sets (``-XX:+DisableExplicitGC`` -> ``DisableExplicitGC``, ``-Xmx1g`` -> ``Xmx``)."""
    m = _OPTION.match(flag)
    return (m["xx"] or m["x"]) if m else flag.split("=", 1)[0]


def level_name(flags: Sequence[str]) -> str:
    """A factor-level name made of the flags: ``DisableExplicitGC``, ``Xmx384m``, ``G1ReservePercent-20``,
    ``MaxMetaspaceSize-256m_MetaspaceSize-256m`` (two flags), ``A-and-2-more`` (more)."""
    parts = []
    for flag in flags:
        text = re.sub(r"^-XX:-", "No", flag)  # a switched-off option must not read as switched on
        text = re.sub(r"^-XX:[+]?", "", text).lstrip("-").replace("=", "-")
        parts.append(re.sub(r"[^A-Za-z0-9_.-]", "", text))
    name = "_".join(parts) if len(parts) <= 2 else parts[0] + f"-and-{len(parts) - 1}-more"
    return name if re.match(r"^[A-Za-z_]", name) else f"fix-{name}"


def fix_levels(findings: Sequence[Finding], current_flags: Sequence[str] = ()) -> list[FixLevel]:
    """``current``, one level per distinct fix (fixes already in ``current_flags`` left out),
    and ``combined`` (the first fix of each group, when 2+ groups set different options)."""
    by_flags: dict[tuple[str, ...], FixLevel] = {}
    current = set(current_flags)
    for f in findings:
        for fix in f.fixes:
            if not fix.flags or set(fix.flags) <= current:
                continue
            old = by_flags.get(fix.flags)
            if old is None:
                by_flags[fix.flags] = FixLevel(level_name(fix.flags), fix.flags, (f.id,), (fix.reason,), fix.group)
            elif f.id not in old.finding_ids:
                by_flags[fix.flags] = FixLevel(old.name, old.flags, (*old.finding_ids, f.id), old.reasons, old.group)
    levels = [FixLevel(CURRENT, (), (), ("the flags the log was made with",), "")]
    names = {CURRENT, COMBINED}
    for lv in by_flags.values():
        name, k = lv.name, 2
        while name in names:
            name, k = f"{lv.name}-{k}", k + 1
        names.add(name)
        levels.append(FixLevel(name, lv.flags, lv.finding_ids, lv.reasons, lv.group))
    combined = _combined(levels[1:])
    if combined is not None:
        levels.append(combined)
    return levels


def _combined(fixes: Sequence[FixLevel]) -> FixLevel | None:
    chosen: list[FixLevel] = []
    options: set[str] = set()
    for lv in fixes:
        opts = {option_of(f) for f in lv.flags}
        if any(c.group == lv.group for c in chosen) or opts & options:
            continue  # an alternative to a fix already in, or the same option set twice
        chosen.append(lv)
        options |= opts
    if len(chosen) < 2:
        return None
    flags = tuple(f for c in chosen for f in c.flags)
    ids = tuple(dict.fromkeys(i for c in chosen for i in c.finding_ids))
    return FixLevel(COMBINED, flags, ids, (f"together: {', '.join(c.name for c in chosen)}",), "combined")


def one_cell(spec: Spec, jvm: str, levels: dict[str, str]) -> Spec:
    """``spec`` narrowed to one cell (a JVM and one level of each factor), its flags, program
    arguments and environment folded into the workload: the "current" side of an advice."""
    if jvm not in spec.jvms:
        raise UserError(f"the spec has no JVM {jvm!r} (its [jvms]: {', '.join(spec.jvms)})")
    flags = list(spec.workload.jvm_args)
    args = list(spec.workload.args)
    env = dict(spec.workload.env)
    for factor, level_name_ in levels.items():
        level = spec.factors.get(factor, {}).get(level_name_)
        if level is None:
            raise UserError(f"the spec has no level {level_name_!r} of factor {factor!r}")
        if level.prepare:
            raise UserError(f"level {factor}={level_name_} prepares an archive; advise a cell without one")
        flags += level.flags
        args += level.args
        env.update(level.env)
    workload = spec.workload.model_copy(update={"jvm_args": flags, "args": args, "env": env})
    return spec.model_copy(update={"workload": workload, "jvms": {jvm: spec.jvms[jvm]}, "factors": {},
                                   "matrix": Matrix(), "tune": None})


def advise_spec(cell_spec: Spec, levels: Sequence[FixLevel], invocations: int | None = None) -> Spec:
    """The one-cell spec with the ``gcfix`` factor (``current`` the baseline)."""
    if len(levels) < 2:
        raise UserError("no candidate fix to try: the findings propose no flags (see their advice)")
    factor = {lv.name: Level(flags=list(lv.flags)) for lv in levels}
    run = cell_spec.run if invocations is None else cell_spec.run.model_copy(update={"invocations": invocations})
    return cell_spec.model_copy(update={
        "name": f"{cell_spec.name or 'experiment'}: gc advise", "factors": {FACTOR: factor},
        "matrix": Matrix(baseline={FACTOR: CURRENT}), "run": run})


def tune_spec(cell_spec: Spec, levels: Sequence[FixLevel], base: dict[str, Any] | None = None) -> Spec:
    """The one-cell spec with a ``[tune]`` space: per group of fixes, ``off`` or one of them."""
    groups: dict[str, dict[str, str]] = {}
    for lv in levels:
        if lv.name in (CURRENT, COMBINED):
            continue
        groups.setdefault(re.sub(r"[^A-Za-z0-9_]", "_", lv.group or lv.name), {"off": ""})[lv.name] = " ".join(lv.flags)
    if not groups:
        raise UserError("no candidate fix to tune: the findings propose no flags (see their advice)")
    params = {name: {"type": "categorical", "values": values} for name, values in groups.items()}
    tune = {"objective": "wall_s", **(base or {}), "params": params}
    return cell_spec.model_copy(update={"name": f"{cell_spec.name or 'experiment'}: gc advise --tune",
                                        "tune": tune})


def provenance_text(spec_text: str, source: str, findings: Sequence[Finding], levels: Sequence[FixLevel]) -> str:
    """The stored spec text: the original and one comment line with what was derived from what."""
    record = {"source": source, "findings": [f.id for f in findings], "levels": [lv.to_json() for lv in levels]}
    return spec_text.rstrip() + "\n#gc-advise " + json.dumps(record, sort_keys=True) + "\n"
