"""Every stored document as a typed, versioned, frozen record (``base.Document``).

Writers build a record and store it (``Store.put_record``, or ``record.to_json()`` into an
invocation's ``Collected.documents``); readers get records back (``Store.record``,
``Store.records``). ``EXPERIMENT_DOCUMENTS`` and ``INVOCATION_DOCUMENTS`` map each kind to its
record; the store's migration v5 rewrote the documents of these kinds stored before versions.
The store's migration v7 rewrote the invocation documents typed after v5 (progress, jfr,
proc, server, limits, flag_effect, gc ...); ``gc`` types the top of the GC log analyzer's
summary and keeps the summary as the analyzer's JSON (``GcDocument.summary``).
"""

from __future__ import annotations

from jvmlab.model.documents.base import Document, DocumentError, JsonObject
from jvmlab.model.documents.collector import (
    JfrDocument,
    JfrProfileDocument,
    ProcDocument,
    ProgressDocument,
    ProgressSegment,
)
from jvmlab.model.documents.experiment import (
    ARCHIVES_SCHEMA,
    IDENTITY_PARTS,
    ArchiveRecord,
    ArchivesDocument,
    CellIdentity,
    CellIdentityDocument,
    GcAdviseDocument,
    GcFixLevelRecord,
    ImportDocument,
    SpecChange,
    SpecHistoryDocument,
    WarningGroup,
)
from jvmlab.model.documents.gc import GcDocument, GcStat, GcSummary
from jvmlab.model.documents.invocation import JmhDocument, JmhScoreRecord, JmhSecondaryRecord, LoadHistogramDocument
from jvmlab.model.documents.machine import (
    FlagEffectDocument,
    FlagEvidence,
    JvmViewDocument,
    JvmWarningsDocument,
    LimitsDocument,
    ServerDocument,
    ServerNotesDocument,
    ServerStopDocument,
)
from jvmlab.model.documents.options import ImportedFrom, RunOptionsRecord
from jvmlab.model.documents.revisions import RevisionRecord, RevisionsDocument
from jvmlab.model.documents.rightsize import (
    CandidateRecord,
    GoalFigures,
    GoalRecord,
    RightsizeDocument,
    RightsizeRequestRecord,
)
from jvmlab.model.documents.sizing import (
    HeapLevel,
    HeapSweepDocument,
    MinHeapCellRecord,
    MinHeapDocument,
    MinHeapRequestRecord,
    MinHeapResult,
    ProbeOutcome,
    Status,
    Verdict,
)
from jvmlab.model.documents.tune import (
    TuneClusterDocument,
    TunedConfig,
    TunedConfirmation,
    TunedObjective,
    TuneDocument,
    TunedTrial,
)

EXPERIMENT_DOCUMENTS: dict[str, type[Document]] = {cls.KIND: cls for cls in (
    TuneDocument, TuneClusterDocument, MinHeapDocument, HeapSweepDocument, GcAdviseDocument,
    CellIdentityDocument, SpecHistoryDocument, ImportDocument, ArchivesDocument, RightsizeDocument,
    RevisionsDocument)}
# The invocation documents given a record after store migration v5 ran (migration v7 rewrites them).
TYPED_AFTER_V5: tuple[type[Document], ...] = (
    ProgressDocument, JfrDocument, JfrProfileDocument, ProcDocument, ServerDocument, ServerNotesDocument,
    ServerStopDocument, LimitsDocument, JvmViewDocument, FlagEffectDocument, JvmWarningsDocument, GcDocument)
_TYPED_BY_V5: tuple[type[Document], ...] = (JmhDocument, LoadHistogramDocument, ProbeOutcome)
INVOCATION_DOCUMENTS: dict[str, type[Document]] = {cls.KIND: cls for cls in (*_TYPED_BY_V5, *TYPED_AFTER_V5)}

__all__ = [
    "ARCHIVES_SCHEMA", "EXPERIMENT_DOCUMENTS", "IDENTITY_PARTS", "INVOCATION_DOCUMENTS", "TYPED_AFTER_V5",
    "ArchiveRecord", "ArchivesDocument", "CandidateRecord", "CellIdentity", "CellIdentityDocument", "Document",
    "DocumentError", "FlagEffectDocument", "FlagEvidence", "GcAdviseDocument", "GcDocument", "GcFixLevelRecord",
    "GcStat", "GcSummary", "GoalFigures", "GoalRecord", "HeapLevel", "HeapSweepDocument", "ImportDocument",
    "ImportedFrom", "JfrDocument", "JfrProfileDocument", "JmhDocument", "JmhScoreRecord", "JmhSecondaryRecord",
    "JsonObject", "JvmViewDocument", "JvmWarningsDocument", "LimitsDocument", "LoadHistogramDocument",
    "MinHeapCellRecord", "MinHeapDocument", "MinHeapRequestRecord", "MinHeapResult", "ProbeOutcome", "ProcDocument",
    "ProgressDocument", "ProgressSegment", "RevisionRecord", "RevisionsDocument", "RightsizeDocument",
    "RightsizeRequestRecord", "RunOptionsRecord", "ServerDocument", "ServerNotesDocument", "ServerStopDocument",
    "SpecChange", "SpecHistoryDocument", "Status", "TuneClusterDocument", "TuneDocument", "TunedConfig",
    "TunedConfirmation", "TunedObjective", "TunedTrial", "Verdict", "WarningGroup",
]
