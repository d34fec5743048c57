"""The SQL store (SQLite by default; any SQLAlchemy URL). Each invocation is committed in
one transaction the moment it finishes, with its metrics, timelines and documents.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import CursorResult, Engine, create_engine, event, func, select, update
from sqlalchemy.exc import (
    ArgumentError,
    DatabaseError,
    NoSuchModuleError,
    OperationalError,
)

from jvmlab.errors import UserError, hide_passwords
from jvmlab.model.collected import Collected
from jvmlab.model.documents import Document, DocumentError, RunOptionsRecord
from jvmlab.model.hazards import BUSY_MACHINE, Hazard, MachineLoad
from jvmlab.model.process import ProcessResult
from jvmlab.model.stored import (
    PROCESS_METRICS,
    SeriesTag,
    StoredCell,
    StoredExperiment,
    StoredHazard,
    StoredInvocation,
)
from jvmlab.store import schema as t
from jvmlab.store.failures import first_line, guard, opened, shown_url, status_set
from jvmlab.store.identity import watch_file
from jvmlab.store.migrations import upgrade

D = TypeVar("D", bound=Document)


def _inserted_id(result: CursorResult[Any]) -> int:
    """The new row's id; an INSERT that returns none is a driver fault, not bad input."""
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError("the database returned no id for the inserted row")
    return int(key[0])


def _storable(value: object) -> bool:
    """A metric value worth a row: a number, not NaN (a collector's None or NaN means unmeasured)."""
    return isinstance(value, int | float) and value == value


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=60000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


@guard
class SqlStore:
    """Experiments, cells and invocations in a relational database. Any database error of a
    public method is a one-line StoreError (store/failures.py)."""

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            self.engine: Engine = create_engine(url, future=True)
        except (ImportError, NoSuchModuleError, ArgumentError) as err:
            raise UserError(f"cannot use store {shown_url(url)}: {hide_passwords(str(err))}; give an SQLite path "
                            f"or an SQLAlchemy URL whose driver is installed (PostgreSQL: pip install "
                            f"'jvmlab[postgres]')") from None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            with self.engine.connect() as conn:
                upgrade(conn, url)
        except OperationalError as err:
            raise UserError(f"cannot open store {shown_url(url)}: {hide_passwords(first_line(err))}") from None
        except DatabaseError as err:  # e.g. a log file given as --store
            raise UserError(_not_a_database(url, self.engine.dialect.name, err)) from None
        if self.engine.dialect.name == "sqlite" and self.engine.url.database not in (None, "", ":memory:"):
            watch_file(self.engine, Path(str(self.engine.url.database)).absolute())

    def close(self) -> None:
        self.engine.dispose()

    # -- experiments -------------------------------------------------------------------
    def create_experiment(self, *, name: str, spec_text: str, spec_hash: str, spec_path: str | None,
                          fingerprint: dict[str, Any], seed: int, command_line: str,
                          jvmlab_version: str, artifacts_dir: str) -> int:
        with self.engine.begin() as conn:
            result = conn.execute(t.experiment.insert().values(
                name=name, spec_text=spec_text, spec_hash=spec_hash, spec_path=spec_path,
                fingerprint_json=json.dumps(fingerprint, sort_keys=True), created_at=time.time(),
                status="running", seed=seed, command_line=command_line,
                jvmlab_version=jvmlab_version, artifacts_dir=artifacts_dir))
            exp_id = _inserted_id(result)
        opened(self, exp_id)
        return exp_id

    def set_status(self, experiment_id: int, status: str, finished: bool = False) -> None:
        finished_at = {"finished_at": time.time()} if finished else {}
        self._update_experiment(experiment_id, status=status, **finished_at)
        status_set(self, experiment_id, status)

    def _update_experiment(self, experiment_id: int, **values: Any) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(t.experiment).where(t.experiment.c.id == experiment_id).values(**values))

    def set_run_options(self, experiment_id: int, options: RunOptionsRecord) -> None:
        """Record how the run was started (metric, --until, budget, ...), replacing what was there."""
        self._update_experiment(experiment_id, run_options_json=json.dumps(options.to_json(), sort_keys=True))

    def set_spec(self, experiment_id: int, spec_text: str, spec_hash: str) -> None:
        """An experiment that grew cells now stands for the grown spec (resume finds it by hash)."""
        self._update_experiment(experiment_id, spec_text=spec_text, spec_hash=spec_hash)

    def put_record(self, experiment_id: int, record: Document) -> None:
        """Store (or replace) the experiment's document of ``record.KIND``, versioned."""
        kind = record.KIND
        with self.engine.begin() as conn:
            conn.execute(t.experiment_document.delete()
                         .where(t.experiment_document.c.experiment_id == experiment_id)
                         .where(t.experiment_document.c.kind == kind))
            conn.execute(t.experiment_document.insert().values(
                experiment_id=experiment_id, kind=kind, body_json=json.dumps(record.to_json(), default=str)))

    def record(self, experiment_id: int, kind: type[D]) -> D | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(t.experiment_document.c.body_json)
                               .where(t.experiment_document.c.experiment_id == experiment_id)
                               .where(t.experiment_document.c.kind == kind.KIND)).first()
        if row is None:
            return None
        return _decoded(kind, row[0], f"experiment {experiment_id} in {shown_url(self.url)}")

    def set_baseline(self, experiment_id: int, cell_idx: int) -> None:
        self._update_experiment(experiment_id, baseline_cell=cell_idx)

    def experiment(self, experiment_id: int) -> StoredExperiment:
        with self.engine.connect() as conn:
            row = conn.execute(select(t.experiment).where(t.experiment.c.id == experiment_id)).first()
        if row is None:
            raise UserError(f"no experiment {experiment_id} in {self.url}; `jvmlab results` lists them")
        return _experiment(row)

    def experiments(self) -> list[StoredExperiment]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.experiment).order_by(t.experiment.c.id)).all()
        return [_experiment(r) for r in rows]

    def latest_experiment(self) -> StoredExperiment:
        with self.engine.connect() as conn:
            row = conn.execute(select(t.experiment).order_by(t.experiment.c.id.desc()).limit(1)).first()
        if row is None:
            raise UserError(f"no experiments in {self.url} yet; run one with `jvmlab run SPEC`")
        return _experiment(row)

    def find_resumable(self, spec_hash: str) -> StoredExperiment | None:
        """The newest experiment of this exact spec (resume continues it)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(t.experiment).where(t.experiment.c.spec_hash == spec_hash)
                               .order_by(t.experiment.c.id.desc()).limit(1)).first()
        return _experiment(row) if row is not None else None

    def invocation_counts(self) -> dict[int, tuple[int, int]]:
        """experiment id -> (measured invocations, failures)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.invocation.c.experiment_id, t.invocation.c.status, func.count())
                                .where(t.invocation.c.warmup.is_(False))
                                .group_by(t.invocation.c.experiment_id, t.invocation.c.status)).all()
        counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        for exp_id, status, n in rows:
            counts[exp_id][0] += n
            if status != "ok":
                counts[exp_id][1] += n
        return {k: (v[0], v[1]) for k, v in counts.items()}

    # -- series over time (schema v4) ---------------------------------------------------
    def set_series(self, experiment_id: int, tag: SeriesTag, default_series: str) -> None:
        """Make the experiment the point ``tag.label`` of its series (``default_series`` when the
        tag names none); a resumed experiment given a new label moves with it."""
        self._update_experiment(experiment_id, series=tag.series or default_series, label=tag.label,
                                label_order=tag.order)

    def series_names(self) -> dict[str, int]:
        """Series name -> number of experiments in it."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.experiment.c.series, func.count()).where(t.experiment.c.series.is_not(None))
                                .group_by(t.experiment.c.series)).all()
        return {name: n for name, n in rows}

    def series_experiments(self, series: str) -> list[StoredExperiment]:
        """The experiments of one series, in order of arrival (ids)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.experiment).where(t.experiment.c.series == series)
                                .order_by(t.experiment.c.id)).all()
        return [_experiment(r) for r in rows]

    def series_metric_units(self, series: str) -> dict[str, str]:
        """The collected metrics stored in a series (besides the process columns): name -> unit."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.metric.c.name, t.metric.c.unit).distinct()
                                .join(t.invocation, t.invocation.c.id == t.metric.c.invocation_id)
                                .join(t.experiment, t.experiment.c.id == t.invocation.c.experiment_id)
                                .where(t.experiment.c.series == series)).all()
        return {r[0]: r[1] or "" for r in rows}

    def series_values(self, series: str, metrics: list[str]) -> list[tuple[int, str, str, float]]:
        """Every measured value of these metrics in the series as (experiment id, cell name,
        metric, value): ok, measured (not warm-up) invocations only. Two queries whatever the
        number of labels (one for the process columns, one for collected metrics), never one
        per experiment: a series of 1,000 labels x 20 cells loads in one round trip each."""
        process = [m for m in metrics if m in PROCESS_METRICS]
        collected = [m for m in metrics if m not in PROCESS_METRICS]
        base = (t.invocation.join(t.experiment, t.experiment.c.id == t.invocation.c.experiment_id)
                .join(t.cell, t.cell.c.id == t.invocation.c.cell_id))
        ok = (t.experiment.c.series == series, t.invocation.c.warmup.is_(False), t.invocation.c.status == "ok")
        out: list[tuple[int, str, str, float]] = []
        with self.engine.connect() as conn:
            if process:
                columns = sorted(({"user_s", "sys_s"} if "cpu_s" in process else set())
                                 | {m for m in process if m != "cpu_s"})
                rows = conn.execute(select(t.invocation.c.experiment_id, t.cell.c.name,
                                           *[t.invocation.c[c] for c in columns])
                                    .select_from(base).where(*ok)).all()
                for row in rows:
                    got = dict(zip(columns, row[2:], strict=True))
                    if "cpu_s" in process and got["user_s"] is not None and got["sys_s"] is not None:
                        out.append((row[0], row[1], "cpu_s", float(got["user_s"] + got["sys_s"])))
                    out += [(row[0], row[1], m, float(got[m])) for m in process
                            if m != "cpu_s" and got[m] is not None]
            if collected:
                rows = conn.execute(select(t.invocation.c.experiment_id, t.cell.c.name, t.metric.c.name,
                                           t.metric.c.value)
                                    .select_from(base.join(t.metric, t.metric.c.invocation_id == t.invocation.c.id))
                                    .where(*ok, t.metric.c.name.in_(collected))).all()
                out += [(r[0], r[1], r[2], float(r[3])) for r in rows]
        return out

    # -- cells -------------------------------------------------------------------------
    def add_cell(self, experiment_id: int, *, idx: int, name: str, jvm: str, jdk: dict[str, Any],
                 levels: dict[str, str], requested_flags: list[str], flags: list[str],
                 final_flags: dict[str, str], argv: list[str] | None) -> int:
        with self.engine.begin() as conn:
            result = conn.execute(t.cell.insert().values(
                experiment_id=experiment_id, idx=idx, name=name, jvm=jvm, jdk_json=json.dumps(jdk),
                levels_json=json.dumps(levels), requested_flags_json=json.dumps(requested_flags),
                flags_json=json.dumps(flags), final_flags_json=json.dumps(final_flags),
                argv_json=json.dumps(argv) if argv is not None else None))
            return _inserted_id(result)

    def cells(self, experiment_id: int) -> list[StoredCell]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.cell).where(t.cell.c.experiment_id == experiment_id)
                                .order_by(t.cell.c.idx)).all()
        return [StoredCell(id=r.id, idx=r.idx, name=r.name, jvm=r.jvm, jdk=json.loads(r.jdk_json),
                           levels=json.loads(r.levels_json),
                           requested_flags=json.loads(r.requested_flags_json),
                           flags=json.loads(r.flags_json), final_flags=json.loads(r.final_flags_json),
                           argv=json.loads(r.argv_json) if r.argv_json else None) for r in rows]

    # -- invocations -------------------------------------------------------------------
    def record_invocation(self, experiment_id: int, cell_id: int, *, block: int, position: int,
                          result: ProcessResult, collected: Collected, argv: list[str],
                          artifacts_dir: str | None, node: str | None = None, host: str | None = None) -> int:
        """Store one finished invocation and everything collected, in one transaction.
        ``node`` names the cluster node (Dask worker) that ran it (None on one machine), ``host``
        the machine it ran on."""
        m = result.measures
        row = dict(
            experiment_id=experiment_id, cell_id=cell_id, block=block, position=position,
            warmup=block < 0, started_at=result.started_at, status=str(result.status),
            reason=result.reason, exit_code=result.exit_code, signal=result.signal,
            argv_json=json.dumps(argv), stdout_tail=result.stdout_tail, stderr_tail=result.stderr_tail,
            artifacts_dir=artifacts_dir, node=node, host=host,
        )
        if m is not None:
            row.update(wall_s=m.wall_s, user_s=m.user_s, sys_s=m.sys_s, max_rss_bytes=m.max_rss_bytes,
                       minor_faults=m.minor_faults, major_faults=m.major_faults,
                       vol_ctx_switches=m.vol_ctx_switches, invol_ctx_switches=m.invol_ctx_switches,
                       ready_s=m.ready_s)
        with self.engine.begin() as conn:  # a database error: one line (store/failures.py)
            inv_id = _inserted_id(conn.execute(t.invocation.insert().values(**row)))
            self._write_collected(conn, experiment_id, inv_id, collected)
        return inv_id

    @staticmethod
    def _write_collected(conn: Any, experiment_id: int, inv_id: int, collected: Collected) -> None:
        rows = {
            t.metric: [dict(invocation_id=inv_id, name=k, value=float(v), unit=collected.metric_units.get(k))
                       for k, v in collected.metrics.items() if _storable(v)],
            t.timeline: [dict(invocation_id=inv_id, series=k, unit=tl.unit, t_json=json.dumps(list(tl.t_s)),
                              values_json=json.dumps(list(tl.values))) for k, tl in collected.timelines.items()],
            t.document: [dict(invocation_id=inv_id, kind=k, body_json=json.dumps(v, default=str))
                         for k, v in collected.documents.items()],
            t.hazard: [dict(experiment_id=experiment_id, invocation_id=inv_id, cell=h.cell, kind=str(h.kind),
                            detail=h.detail, hint=h.hint, **_load_columns(h.load)) for h in collected.hazards],
        }
        for table, table_rows in rows.items():
            if table_rows:  # no rows: no INSERT (an empty list would insert one row of defaults)
                conn.execute(table.insert(), table_rows)

    # -- cluster nodes (schema v3) ---------------------------------------------------------
    def put_node(self, experiment_id: int, name: str, fingerprint: dict[str, Any],
                 refused: str | None = None) -> None:
        """Record (or replace) one node's fingerprint and whether it was refused, and why."""
        row = dict(experiment_id=experiment_id, name=name, fingerprint_json=json.dumps(fingerprint, default=str),
                   refused=refused)
        with self.engine.begin() as conn:
            conn.execute(t.node.delete().where(t.node.c.experiment_id == experiment_id, t.node.c.name == name))
            conn.execute(t.node.insert().values(**row))

    def nodes(self, experiment_id: int) -> dict[str, tuple[dict[str, Any], str | None]]:
        """Node name -> (fingerprint, refusal reason or None)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.node).where(t.node.c.experiment_id == experiment_id)).all()
        return {r.name: (json.loads(r.fingerprint_json), r.refused) for r in rows}

    def invocation_nodes(self, experiment_id: int) -> dict[int, str | None]:
        """Invocation id -> the node that ran it (None: run on one machine, not a cluster)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.invocation.c.id, t.invocation.c.node)
                                .where(t.invocation.c.experiment_id == experiment_id)).all()
        return {r[0]: r[1] for r in rows}

    def done_slots(self, experiment_id: int) -> set[tuple[int, int]]:
        """(cell idx, block) of every stored invocation: resume skips these."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.cell.c.idx, t.invocation.c.block)
                                .join(t.cell, t.cell.c.id == t.invocation.c.cell_id)
                                .where(t.invocation.c.experiment_id == experiment_id)).all()
        return {(r[0], r[1]) for r in rows}

    def invocations(self, experiment_id: int, include_warmup: bool = False) -> list[StoredInvocation]:
        query = select(t.invocation).where(t.invocation.c.experiment_id == experiment_id)
        if not include_warmup:
            query = query.where(t.invocation.c.warmup.is_(False))
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(t.invocation.c.id)).all()
            metric_rows = conn.execute(
                select(t.metric.c.invocation_id, t.metric.c.name, t.metric.c.value)
                .join(t.invocation, t.invocation.c.id == t.metric.c.invocation_id)
                .where(t.invocation.c.experiment_id == experiment_id)).all()
        metrics: dict[int, dict[str, float]] = defaultdict(dict)
        for inv_id, name, value in metric_rows:
            metrics[inv_id][name] = value
        return [_invocation(r, metrics.get(r.id, {})) for r in rows]

    def metric_units(self, experiment_id: int) -> dict[str, str]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.metric.c.name, t.metric.c.unit).distinct()
                                .join(t.invocation, t.invocation.c.id == t.metric.c.invocation_id)
                                .where(t.invocation.c.experiment_id == experiment_id)).all()
        return {name: unit or "" for name, unit in rows}

    def timelines(self, invocation_ids: list[int]) -> dict[int, dict[str, tuple[str, list[float], list[float]]]]:
        """invocation id -> series -> (unit, t_s, values)."""
        out: dict[int, dict[str, tuple[str, list[float], list[float]]]] = defaultdict(dict)
        with self.engine.connect() as conn:
            for chunk in _chunks(invocation_ids, 500):
                rows = conn.execute(select(t.timeline).where(t.timeline.c.invocation_id.in_(chunk))).all()
                for r in rows:
                    out[r.invocation_id][r.series] = (r.unit or "", json.loads(r.t_json), json.loads(r.values_json))
        return out

    def documents(self, invocation_ids: list[int], kind: str) -> dict[int, Any]:
        out: dict[int, Any] = {}
        with self.engine.connect() as conn:
            for chunk in _chunks(invocation_ids, 500):
                rows = conn.execute(select(t.document).where(t.document.c.invocation_id.in_(chunk))
                                    .where(t.document.c.kind == kind)).all()
                out.update({r.invocation_id: json.loads(r.body_json) for r in rows})
        return out

    def records(self, invocation_ids: list[int], kind: type[D], *, skip_unreadable: bool = False) -> dict[int, D]:
        out: dict[int, D] = {}
        with self.engine.connect() as conn:
            for chunk in _chunks(invocation_ids, 500):
                rows = conn.execute(select(t.document.c.invocation_id, t.document.c.body_json)
                                    .where(t.document.c.invocation_id.in_(chunk))
                                    .where(t.document.c.kind == kind.KIND)).all()
                for inv, body_json in rows:
                    try:
                        out[inv] = _decoded(kind, body_json, f"invocation {inv} in {shown_url(self.url)}")
                    except DocumentError:
                        if not skip_unreadable:
                            raise
        return out

    # -- hazards -----------------------------------------------------------------------
    def add_hazard(self, experiment_id: int, hazard: Hazard) -> None:
        with self.engine.begin() as conn:
            conn.execute(t.hazard.insert().values(experiment_id=experiment_id, cell=hazard.cell,
                                                  kind=str(hazard.kind), detail=hazard.detail, hint=hazard.hint,
                                                  **_load_columns(hazard.load)))

    def hazards(self, experiment_id: int) -> list[StoredHazard]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.hazard).where(t.hazard.c.experiment_id == experiment_id)
                                .order_by(t.hazard.c.id)).all()
        return [StoredHazard(r.kind, r.detail, r.hint, r.cell, r.invocation_id, _load_of(r)) for r in rows]


def _load_columns(load: MachineLoad | None) -> dict[str, Any]:
    if load is None:
        return {}
    return {"block": load.block, "other_share": load.other_share, "steal_share": load.steal_share,
            "run_delay_s": load.run_delay_s, "node": load.node}


def _load_of(row: Any) -> MachineLoad | None:
    """A busy machine's numbers from their columns (None for other kinds)."""
    if row.kind != BUSY_MACHINE:
        return None
    return MachineLoad(row.block, row.other_share, row.steal_share, row.run_delay_s, row.node)


def _not_a_database(url: str, dialect: str, err: DatabaseError) -> str:
    """One line for a --store that exists but is not a database jvmlab can read."""
    if dialect == "sqlite":
        return (f"store {url.removeprefix('sqlite:///')} is not an SQLite database ({err.orig}); "
                f"pass another --store (a new file name makes a new store)")
    return f"cannot open store {shown_url(url)}: {hide_passwords(first_line(err))}"


def _decoded(kind: type[D], body_json: str, where: str) -> D:
    """The stored JSON as its record; a document this jvmlab cannot read: one line saying where."""
    try:
        return kind.from_json(json.loads(body_json))
    except DocumentError as err:
        raise DocumentError(f"{where}: {err}") from None
    except ValueError:
        raise DocumentError(f"{where}: the stored {kind.KIND!r} document is not JSON") from None


def _chunks(items: list[int], size: int) -> list[list[int]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _experiment(r: Any) -> StoredExperiment:
    return StoredExperiment(
        id=r.id, name=r.name, spec_text=r.spec_text, spec_hash=r.spec_hash, spec_path=r.spec_path,
        fingerprint=json.loads(r.fingerprint_json), created_at=r.created_at, finished_at=r.finished_at,
        status=r.status, seed=r.seed, baseline_cell=r.baseline_cell, command_line=r.command_line,
        artifacts_dir=r.artifacts_dir,
        run_options=(RunOptionsRecord.from_json(json.loads(r.run_options_json)) if r.run_options_json
                     else RunOptionsRecord()),
        series=r.series, label=r.label, label_order=r.label_order)


def _invocation(r: Any, metrics: dict[str, float]) -> StoredInvocation:
    return StoredInvocation(
        id=r.id, cell_id=r.cell_id, block=r.block, position=r.position, warmup=bool(r.warmup),
        started_at=r.started_at, status=r.status, reason=r.reason, exit_code=r.exit_code,
        signal=r.signal, wall_s=r.wall_s, user_s=r.user_s, sys_s=r.sys_s,
        max_rss_bytes=r.max_rss_bytes, minor_faults=r.minor_faults, major_faults=r.major_faults,
        vol_ctx_switches=r.vol_ctx_switches, invol_ctx_switches=r.invol_ctx_switches,
        ready_s=r.ready_s, argv=json.loads(r.argv_json), stdout_tail=r.stdout_tail,
        stderr_tail=r.stderr_tail, artifacts_dir=r.artifacts_dir, metrics=metrics, node=r.node,
        host=r.host)
