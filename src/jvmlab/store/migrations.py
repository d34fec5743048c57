"""Versioned schema. A fresh database gets the current tables and the latest version; an
older one gets each missing migration applied in its own transaction with its record; a
newer one is refused with a message, never touched.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

from sqlalchemy import Connection, Table, inspect, select, text, update

from jvmlab.errors import UserError
from jvmlab.model.documents import (
    EXPERIMENT_DOCUMENTS,
    INVOCATION_DOCUMENTS,
    TYPED_AFTER_V5,
    Document,
    DocumentError,
    RunOptionsRecord,
)
from jvmlab.store.schema import document, experiment, experiment_document, hazard, metadata, node, schema_version

Migration = tuple[int, str, Callable[[Connection], None]]

# (version, description, function). Version 1 is the initial schema, made by create_all.
MIGRATIONS: list[Migration] = [
    (1, "initial schema: experiment, cell, invocation, metric, timeline, document, hazard",
     lambda conn: None),
    (2, "experiment.run_options_json and experiment_document", lambda conn: _v2(conn)),
    (3, "invocation.node and the node table (cluster runs)", lambda conn: _v3(conn)),
    (4, "experiment.series, label and label_order (performance over time)", lambda conn: _v4(conn)),
    (5, "experiment documents: typed, versioned", lambda conn: _v5(conn)),
    (6, "invocation.host: the host each invocation ran on", lambda conn: _v6(conn)),
    (7, "invocation documents typed after v5: progress, jfr, proc, server, limits, flag_effect ...",
     lambda conn: _v7(conn)),
    (8, "experiment run options: a typed, versioned record (a minimum-heap search's kind and request dropped)",
     lambda conn: _v8(conn)),
    (9, "hazard.block, other_share, steal_share, run_delay_s, node: a busy machine's numbers",
     lambda conn: _v9(conn)),
]
LATEST = MIGRATIONS[-1][0]


def _v2(conn: Connection) -> None:
    conn.execute(text("ALTER TABLE experiment ADD COLUMN run_options_json TEXT"))
    experiment_document.create(conn, checkfirst=True)


def _v3(conn: Connection) -> None:
    conn.execute(text("ALTER TABLE invocation ADD COLUMN node VARCHAR(200)"))
    node.create(conn, checkfirst=True)


def _v4(conn: Connection) -> None:
    conn.execute(text("ALTER TABLE experiment ADD COLUMN series VARCHAR(200)"))
    conn.execute(text("ALTER TABLE experiment ADD COLUMN label VARCHAR(200)"))
    conn.execute(text("ALTER TABLE experiment ADD COLUMN label_order FLOAT"))
    conn.execute(text("CREATE INDEX ix_experiment_series ON experiment (series)"))


def _v5(conn: Connection) -> None:
    """Rewrite every stored document of a kind that has a record (model/documents) through it:
    today's unversioned layouts become version 1 with ``"version"`` written. A kind without a
    record, or a body its record cannot read, is left as it was (its reader says so in one line)."""
    _rewrite(conn, experiment_document, "experiment_id", EXPERIMENT_DOCUMENTS)
    _rewrite(conn, document, "invocation_id", INVOCATION_DOCUMENTS)


def _v6(conn: Connection) -> None:
    conn.execute(text("ALTER TABLE invocation ADD COLUMN host VARCHAR(200)"))


def _v7(conn: Connection) -> None:
    """The invocation documents given a record after v5 (``TYPED_AFTER_V5``) rewritten through
    it, as v5 did for the others (a store that was at v4 had them rewritten by v5 already: the
    rewrite of a current document is the same document)."""
    _rewrite(conn, document, "invocation_id", {cls.KIND: cls for cls in TYPED_AFTER_V5})


def _v8(conn: Connection) -> None:
    """Every experiment's run options rewritten through their record (``RunOptionsRecord``):
    version 2 written, what is not an option (``"kind": "minheap"`` and the search's request,
    kept by its ``minheap`` document) dropped; options it cannot read are left as they were."""
    rows = conn.execute(select(experiment.c.id, experiment.c.run_options_json)
                        .where(experiment.c.run_options_json.is_not(None))).all()
    for experiment_id, options_json in rows:
        try:
            body = RunOptionsRecord.from_json(json.loads(options_json)).to_json()
        except (DocumentError, ValueError):
            continue
        conn.execute(update(experiment).where(experiment.c.id == experiment_id)
                     .values(run_options_json=json.dumps(body, sort_keys=True)))


# The words busy-machine rows were stored with before v9: "[node N busy: ]other processes used
# 40% of the CPU during block 3 (steal 5%)" ("the warm-up"; older stores wrote "block -1").
# Read here once, by the migration; nothing after v9 reads a number out of a hazard's words.
_OLD_BUSY_ROW = re.compile(r"(?:node (?P<node>\S+) busy: )?(?:machine busy: )?other processes used (?P<pct>\d+)% "
                           r"of the CPU during (?:(?P<warmup>the warm-up)|block (?P<block>-?\d+)|the block)"
                           r"(?: \(steal (?P<steal>\d+)%\))?")


def _v9(conn: Connection) -> None:
    """The busy-machine hazard's numbers as columns; the rows stored before as words get them
    from their words, once, here."""
    have = {c["name"] for c in inspect(conn).get_columns("hazard")}
    for column, kind in (("block", "INTEGER"), ("other_share", "FLOAT"), ("steal_share", "FLOAT"),
                         ("run_delay_s", "FLOAT"), ("node", "VARCHAR(200)")):
        if column not in have:
            conn.execute(text(f"ALTER TABLE hazard ADD COLUMN {column} {kind}"))
    rows = conn.execute(select(hazard.c.id, hazard.c.detail).where(hazard.c.kind == "busy-machine")).all()
    for row_id, detail in rows:
        m = _OLD_BUSY_ROW.search(detail or "")
        if m is None:
            continue
        block = -1 if m["warmup"] else int(m["block"]) - 1 if m["block"] is not None else None
        block = -1 if block is not None and block < -1 else block
        conn.execute(update(hazard).where(hazard.c.id == row_id).values(
            block=block, other_share=int(m["pct"]) / 100.0,
            steal_share=None if m["steal"] is None else int(m["steal"]) / 100.0, node=m["node"]))


def _rewrite(conn: Connection, table: Table, owner: str, kinds: dict[str, type[Document]]) -> None:
    rows = conn.execute(select(table.c[owner], table.c.kind, table.c.body_json)
                        .where(table.c.kind.in_(sorted(kinds)))).all()
    for owner_id, kind, body_json in rows:
        try:
            body = kinds[kind].from_json(json.loads(body_json)).to_json()
        except (DocumentError, ValueError):
            continue
        conn.execute(update(table).where(table.c[owner] == owner_id, table.c.kind == kind)
                     .values(body_json=json.dumps(body, default=str)))


def current_version(conn: Connection) -> int | None:
    if not inspect(conn).has_table("schema_version"):
        return None
    return conn.execute(select(schema_version.c.version).order_by(schema_version.c.version.desc())).scalar()


def upgrade(conn: Connection, url_for_messages: str) -> int:
    """Bring the database to LATEST; return the version it is at."""
    version = current_version(conn)
    if version is None:
        metadata.create_all(conn)
        conn.execute(schema_version.insert().values(
            version=LATEST, applied_at=time.time(), description=MIGRATIONS[-1][1]))
        conn.commit()
        return LATEST
    if version > LATEST:
        raise UserError(f"the store {url_for_messages} has schema version {version}, newer than this "
                        f"jvmlab understands ({LATEST}); upgrade jvmlab or use another --store")
    for number, description, apply in MIGRATIONS:
        if number > version:
            with conn.begin_nested() if conn.in_transaction() else conn.begin():
                apply(conn)
                conn.execute(schema_version.insert().values(
                    version=number, applied_at=time.time(), description=description))
            conn.commit()
    return LATEST
