"""The Store protocol: what the rest of jvmlab may ask of a store, whatever holds the rows.

``open_store(url)`` (``store/__init__.py``) chooses the backend by URL and returns this
type; callers name ``Store``, never a backend class. Today every URL is an SQLAlchemy URL
served by ``store/sql.py`` (SQLite, PostgreSQL); another backend implements these methods
and passes the contract suite ``tests/store/test_store_contract.py``.

Guarantees every backend gives: each ``record_invocation`` is one transaction (an
invocation and everything collected appear together or not at all); concurrent writers
from several processes lose no rows; a database newer than the code is refused with a
UserError saying what to do.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from jvmlab.model.collected import Collected
from jvmlab.model.documents import Document, RunOptionsRecord
from jvmlab.model.hazards import Hazard
from jvmlab.model.process import ProcessResult
from jvmlab.model.stored import (
    SeriesTag,
    StoredCell,
    StoredExperiment,
    StoredHazard,
    StoredInvocation,
)

# invocation id -> timeline name -> (unit, t_s, values)
Timelines = dict[int, dict[str, tuple[str, list[float], list[float]]]]
D = TypeVar("D", bound=Document)


class Store(Protocol):
    """Experiments, their cells and invocations, written as they finish and read back typed."""

    url: str  # where the rows are, as given (for messages and resume hints)

    def close(self) -> None: ...

    # -- experiments
    def create_experiment(self, *, name: str, spec_text: str, spec_hash: str, spec_path: str | None,
                          fingerprint: dict[str, Any], seed: int, command_line: str,
                          jvmlab_version: str, artifacts_dir: str) -> int: ...

    def set_status(self, experiment_id: int, status: str, finished: bool = False) -> None: ...

    def set_run_options(self, experiment_id: int, options: RunOptionsRecord) -> None: ...

    def put_record(self, experiment_id: int, record: Document) -> None:
        """Store (or replace) the experiment's document of ``record.KIND`` (model/documents)."""
        ...

    def record(self, experiment_id: int, kind: type[D]) -> D | None:
        """The experiment's document of this kind as its record (None: none stored); a newer
        or malformed one is a one-line DocumentError naming the experiment."""
        ...

    def set_baseline(self, experiment_id: int, cell_idx: int) -> None: ...

    def set_spec(self, experiment_id: int, spec_text: str, spec_hash: str) -> None:
        """An experiment that grew cells now stands for the grown spec (resume finds it by hash)."""
        ...

    def experiment(self, experiment_id: int) -> StoredExperiment:
        """The experiment, or a UserError naming the ids that exist."""
        ...

    def experiments(self) -> list[StoredExperiment]: ...

    def latest_experiment(self) -> StoredExperiment: ...

    def find_resumable(self, spec_hash: str) -> StoredExperiment | None: ...

    def invocation_counts(self) -> dict[int, tuple[int, int]]:
        """experiment id -> (measured invocations, failures among them)."""
        ...

    # -- series over time (`run --label`, `history`)
    def set_series(self, experiment_id: int, tag: SeriesTag, default_series: str) -> None: ...

    def series_names(self) -> dict[str, int]:
        """Series name -> number of experiments in it."""
        ...

    def series_experiments(self, series: str) -> list[StoredExperiment]: ...

    def series_metric_units(self, series: str) -> dict[str, str]: ...

    def series_values(self, series: str, metrics: list[str]) -> list[tuple[int, str, str, float]]:
        """(experiment id, cell name, metric, value) of every ok measured invocation in the
        series, in a fixed number of queries whatever the number of experiments."""
        ...

    # -- cells and invocations
    def add_cell(self, experiment_id: int, *, idx: int, name: str, jvm: str, jdk: dict[str, Any],
                 levels: dict[str, str], requested_flags: list[str], flags: list[str],
                 final_flags: dict[str, str], argv: list[str] | None) -> int: ...

    def cells(self, experiment_id: int) -> list[StoredCell]: ...

    def record_invocation(self, experiment_id: int, cell_id: int, *, block: int, position: int,
                          result: ProcessResult, collected: Collected, argv: list[str],
                          artifacts_dir: str | None, node: str | None = None, host: str | None = None) -> int:
        """Store one finished invocation and everything collected, in one transaction."""
        ...

    def done_slots(self, experiment_id: int) -> set[tuple[int, int]]:
        """(cell index, block) of every stored invocation: what a resume skips."""
        ...

    def invocations(self, experiment_id: int, include_warmup: bool = False) -> list[StoredInvocation]: ...

    def metric_units(self, experiment_id: int) -> dict[str, str]: ...

    def timelines(self, invocation_ids: list[int]) -> Timelines: ...

    def documents(self, invocation_ids: list[int], kind: str) -> dict[int, Any]:
        """A collector's own JSON per invocation (kinds without a record: gc, proc, jfr ...)."""
        ...

    def records(self, invocation_ids: list[int], kind: type[D], *, skip_unreadable: bool = False) -> dict[int, D]:
        """Invocation id -> its document of this kind as a record. A newer or malformed one is a
        one-line DocumentError naming the invocation, or left out with ``skip_unreadable`` (for
        readers whose document is an optional explanation)."""
        ...

    # -- cluster nodes
    def put_node(self, experiment_id: int, name: str, fingerprint: dict[str, Any],
                 refused: str | None = None) -> None: ...

    def nodes(self, experiment_id: int) -> dict[str, tuple[dict[str, Any], str | None]]: ...

    def invocation_nodes(self, experiment_id: int) -> dict[int, str | None]: ...

    # -- hazards
    def add_hazard(self, experiment_id: int, hazard: Hazard) -> None: ...

    def hazards(self, experiment_id: int) -> list[StoredHazard]: ...
