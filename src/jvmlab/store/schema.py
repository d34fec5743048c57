"""The store's tables (SQLAlchemy Core). Changing them means adding a migration."""

from __future__ import annotations

from sqlalchemy import (
                        Boolean,
                        Column,
                        Float,
                        ForeignKey,
                        Index,
                        Integer,
                        MetaData,
                        String,
                        Table,
                        Text,
                        UniqueConstraint,
)

metadata = MetaData()

schema_version = Table(
    "schema_version", metadata,
    Column("version", Integer, primary_key=True),
    Column("applied_at", Float, nullable=False),
    Column("description", Text, nullable=False),
)

experiment = Table(
    "experiment", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("spec_text", Text, nullable=False),
    Column("spec_hash", String(64), nullable=False, index=True),
    Column("spec_path", Text),
    Column("fingerprint_json", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("finished_at", Float),
    Column("status", String(20), nullable=False),  # running, interrupted, done, failed
    Column("seed", Integer, nullable=False),
    Column("baseline_cell", Integer),
    Column("command_line", Text),
    Column("jvmlab_version", String(40)),
    Column("artifacts_dir", Text),
    # migration 2: how the run was started (metric, --until, budget, collect overrides...), so
    # `report` and `--resume` remember it. JSON object; NULL on experiments from version 1.
    Column("run_options_json", Text),
    # migration 4: a point of a series over time (`run --label`, `history`); NULL outside one
    Column("series", String(200)),
    Column("label", String(200)),
    Column("label_order", Float),
)
Index("ix_experiment_series", experiment.c.series)

# migration 2: documents about a whole experiment (archive preparation, minimum-heap searches,
# tuner state...), keyed by kind; one row per (experiment, kind).
experiment_document = Table(
    "experiment_document", metadata,
    Column("experiment_id", Integer, ForeignKey("experiment.id"), primary_key=True),
    Column("kind", String(100), primary_key=True),
    Column("body_json", Text, nullable=False),
)

cell = Table(
    "cell", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("experiment_id", Integer, ForeignKey("experiment.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("jvm", String(200), nullable=False),
    Column("jdk_json", Text, nullable=False),
    Column("levels_json", Text, nullable=False),
    Column("requested_flags_json", Text, nullable=False),
    Column("flags_json", Text, nullable=False),  # after flag checking (unlock flags added)
    Column("final_flags_json", Text, nullable=False),  # PrintFlagsFinal name -> value
    Column("argv_json", Text),  # an example command line, for the report
    UniqueConstraint("experiment_id", "idx"),
)

invocation = Table(
    "invocation", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("experiment_id", Integer, ForeignKey("experiment.id"), nullable=False),
    Column("cell_id", Integer, ForeignKey("cell.id"), nullable=False),
    Column("block", Integer, nullable=False),
    Column("position", Integer, nullable=False),
    Column("warmup", Boolean, nullable=False),
    Column("started_at", Float, nullable=False),
    Column("status", String(20), nullable=False),
    Column("reason", Text),
    Column("exit_code", Integer),
    Column("signal", Integer),
    Column("wall_s", Float),
    Column("user_s", Float),
    Column("sys_s", Float),
    Column("max_rss_bytes", Integer),
    Column("minor_faults", Integer),
    Column("major_faults", Integer),
    Column("vol_ctx_switches", Integer),
    Column("invol_ctx_switches", Integer),
    Column("ready_s", Float),
    Column("argv_json", Text, nullable=False),
    Column("stdout_tail", Text),
    Column("stderr_tail", Text),
    Column("artifacts_dir", Text),
    Column("node", String(200)),  # the cluster node (Dask worker) that ran it; None on one machine
    Column("host", String(200)),  # the host it ran on (schema v6; None: not recorded, an older row)
    UniqueConstraint("experiment_id", "cell_id", "block"),
)
Index("ix_invocation_experiment", invocation.c.experiment_id)

metric = Table(
    "metric", metadata,
    Column("invocation_id", Integer, ForeignKey("invocation.id"), primary_key=True),
    Column("name", String(200), primary_key=True),
    Column("value", Float, nullable=False),
    Column("unit", String(40)),
)

timeline = Table(
    "timeline", metadata,
    Column("invocation_id", Integer, ForeignKey("invocation.id"), primary_key=True),
    Column("series", String(200), primary_key=True),
    Column("unit", String(40)),
    Column("t_json", Text, nullable=False),
    Column("values_json", Text, nullable=False),
)

document = Table(
    "document", metadata,
    Column("invocation_id", Integer, ForeignKey("invocation.id"), primary_key=True),
    Column("kind", String(100), primary_key=True),  # e.g. "gc", "progress"
    Column("body_json", Text, nullable=False),
)

hazard = Table(
    "hazard", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("experiment_id", Integer, ForeignKey("experiment.id"), nullable=False),
    Column("invocation_id", Integer, ForeignKey("invocation.id")),
    Column("cell", Text),
    Column("kind", String(60), nullable=False),
    Column("detail", Text, nullable=False),
    Column("hint", Text),
    # a busy machine's numbers (schema v8, model.hazards.MachineLoad): NULL for other kinds
    Column("block", Integer),
    Column("other_share", Float),
    Column("steal_share", Float),
    Column("run_delay_s", Float),
    Column("node", String(200)),
)
Index("ix_hazard_experiment", hazard.c.experiment_id)

# One row per cluster node of an experiment: its machine fingerprint and JDK builds (schema v3).
node = Table(
    "node", metadata,
    Column("experiment_id", Integer, ForeignKey("experiment.id"), primary_key=True),
    Column("name", String(200), primary_key=True),
    Column("fingerprint_json", Text, nullable=False),
    Column("refused", Text),  # why the node was refused (different JDK build...), None when used
)
