"""Load what the report's "why" part needs, once, into typed records: each successful
invocation's JFR profile (collapsed stacks) and JFR notes (GC phase times, why metrics are
missing). The report then builds flame graphs, profile differences and tables from these
records alone; it never reads the store (``docs/architecture.md``: renderers take results).

The documents are read as their records (``JfrProfileDocument``, ``JfrDocument``). One that
its record cannot read (a collector that failed half-way, a newer jvmlab) gives no record for
that invocation rather than an error: the why part is an explanation added to a report, and a
missing explanation is said so there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from jvmlab.model.documents import JfrDocument, JfrProfileDocument
from jvmlab.model.stored import StoredInvocation
from jvmlab.store.protocol import Store


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


def load_why(store: Store, experiment_id: int,
             invocations: Sequence[StoredInvocation] | None = None) -> WhyRecords:
    """The profiles and JFR notes of an experiment's successful invocations (empty tuples
    when jfr was off). ``invocations``: the experiment's, when already loaded (a report has
    them: only the two documents are read then)."""
    invocations = tuple(store.invocations(experiment_id) if invocations is None else invocations)
    ok = [i for i in invocations if i.status == "ok"]
    ids = [i.id for i in ok]
    profile_docs = store.records(ids, JfrProfileDocument, skip_unreadable=True) if ids else {}
    jfr_docs = store.records(ids, JfrDocument, skip_unreadable=True) if ids else {}
    # an invocation without a readable record gets none (module doc)
    profiles = tuple(InvocationProfile(i.id, i.cell_id, p.stacks())
                     for i in ok if (p := profile_docs.get(i.id)) is not None)
    notes = tuple(JfrNotes(i.id, i.cell_id, d.gc_phases_ms, d.missing or {}, d.error or None)
                  for i in ok if (d := jfr_docs.get(i.id)) is not None)
    return WhyRecords(experiment_id, invocations, profiles, notes)
