"""Every stored document as a typed, versioned, frozen record (``base.Document``).

Writers build a record and store it (``Store.put_record``, or ``record.to_json()`` into an
invocation's ``Collected.documents``); readers get records back (``Store.record``,
``Store.records``). ``EXPERIMENT_DOCUMENTS`` and ``INVOCATION_DOCUMENTS`` map each kind to its
record; the store's migration v5 rewrote the documents of these kinds stored before versions.
Invocation documents not listed here (gc, proc, jfr, progress, server ...) are still their
collector's own JSON.
"""

from __future__ import annotations

from jvmlab.model.documents.base import Document, DocumentError, JsonObject
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
from jvmlab.model.documents.invocation import JmhDocument, JmhScoreRecord, JmhSecondaryRecord, LoadHistogramDocument
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
    CellIdentityDocument, SpecHistoryDocument, ImportDocument, ArchivesDocument)}
INVOCATION_DOCUMENTS: dict[str, type[Document]] = {cls.KIND: cls for cls in (
    JmhDocument, LoadHistogramDocument, ProbeOutcome)}

__all__ = [
    "ARCHIVES_SCHEMA", "EXPERIMENT_DOCUMENTS", "IDENTITY_PARTS", "INVOCATION_DOCUMENTS", "ArchiveRecord",
    "ArchivesDocument", "CellIdentity", "CellIdentityDocument", "Document", "DocumentError", "GcAdviseDocument",
    "GcFixLevelRecord", "HeapLevel", "HeapSweepDocument", "ImportDocument", "JmhDocument", "JmhScoreRecord",
    "JmhSecondaryRecord", "JsonObject", "LoadHistogramDocument", "MinHeapCellRecord", "MinHeapDocument",
    "MinHeapRequestRecord", "MinHeapResult", "ProbeOutcome", "SpecChange", "SpecHistoryDocument", "Status",
    "TuneClusterDocument", "TuneDocument", "TunedConfig", "TunedConfirmation", "TunedObjective", "TunedTrial",
    "Verdict", "WarningGroup",
]
