"""Load what the report's "why" part needs, once, into typed records: each successful
invocation's JFR profile (collapsed stacks) and JFR notes (GC phase times, why metrics are
missing). The report then builds flame graphs, profile differences and tables from these
records alone; it never reads the store (``docs/architecture.md``: renderers take results).

A stored document that is not the expected shape (an older store, a collector that failed
half-way) gives no record for that invocation rather than an error: the why part is an
explanation added to a report, and a missing explanation is said so there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jvmlab.model.stored import StoredInvocation
from jvmlab.store.protocol import Store

PROFILE_DOCUMENT = "jfr.profile"
JFR_DOCUMENT = "jfr"
PROFILE_KINDS = ("cpu", "alloc")  # execution samples; allocation samples weighted by bytes


@dataclass(frozen=True)
class InvocationProfile:
    """One invocation's collapsed stacks per kind ("cpu", "alloc"): stack text -> weight."""

    invocation_id: int
    cell_id: int
    stacks: Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class JfrNotes:
    """One invocation's JFR document: summed GC phase times, and why metrics are missing
    (``error`` set when the recording itself could not be read: every jfr metric is missing)."""

    invocation_id: int
    cell_id: int
    gc_phases_ms: Mapping[str, float] | None  # None: the document has no phase table
    missing: Mapping[str, str]
    error: str | None = None


@dataclass(frozen=True)
class WhyRecords:
    """Everything the why part reads, for one experiment."""

    experiment_id: int
    invocations: tuple[StoredInvocation, ...]  # every measured invocation, failures included
    profiles: tuple[InvocationProfile, ...] = ()
    jfr: tuple[JfrNotes, ...] = ()

    def ok(self) -> list[StoredInvocation]:
        return [i for i in self.invocations if i.status == "ok"]


def load_why(store: Store, experiment_id: int,
             invocations: Sequence[StoredInvocation] | None = None) -> WhyRecords:
    """The profiles and JFR notes of an experiment's successful invocations (empty tuples
    when jfr was off). ``invocations``: the experiment's, when already loaded (a report has
    them: only the two documents are read then)."""
    invocations = tuple(store.invocations(experiment_id) if invocations is None else invocations)
    ok = [i for i in invocations if i.status == "ok"]
    ids = [i.id for i in ok]
    profile_docs = store.documents(ids, PROFILE_DOCUMENT) if ids else {}
    jfr_docs = store.documents(ids, JFR_DOCUMENT) if ids else {}
    profiles = tuple(p for i in ok if (p := profile_of(i, profile_docs.get(i.id))) is not None)
    notes = tuple(n for i in ok if (n := jfr_notes_of(i, jfr_docs.get(i.id))) is not None)
    return WhyRecords(experiment_id, invocations, profiles, notes)


def profile_of(inv: StoredInvocation, doc: Any) -> InvocationProfile | None:
    """The typed form of a ``jfr.profile`` document; None when it is not a mapping."""
    if not isinstance(doc, dict):
        return None
    stacks = {kind: {str(k): float(v) for k, v in (doc.get(kind) or {}).items()} for kind in PROFILE_KINDS}
    return InvocationProfile(inv.id, inv.cell_id, stacks)


def jfr_notes_of(inv: StoredInvocation, doc: Any) -> JfrNotes | None:
    """The typed form of a ``jfr`` document; None when it is not a mapping."""
    if not isinstance(doc, dict):
        return None
    phases = doc.get("gc_phases_ms")
    missing = doc.get("missing")
    return JfrNotes(inv.id, inv.cell_id,
                    {str(k): float(v) for k, v in phases.items()} if isinstance(phases, dict) else None,
                    {str(k): str(v) for k, v in missing.items()} if isinstance(missing, dict) else {},
                    str(doc["error"]) if doc.get("error") else None)
