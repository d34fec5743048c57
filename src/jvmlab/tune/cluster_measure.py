"""`jvmlab tune --cluster`: the tuner's blocks run through the session's Dask block runner
(``cluster.dispatch.Dispatcher``, the one dispatcher, as `run --cluster`).

The tuner asks for whole blocks (`Tuning.blocks`): a race block is the candidate and the
incumbent in their seeded order, and it runs whole on ONE node, so that node's offset cancels
in the block's paired ratio. With ``width`` nodes, that many blocks of a race run at once on
different nodes (the speed-up); blocks a decided race no longer needs are stored, unused.
The width is fixed when the run starts (the nodes accepted then) and stored with the
experiment, so `--resume` on any number of nodes numbers the blocks the same way and
measures nothing twice.

Everything else is the local measurer's (``JvmMeasurer``): the store as the only memory, one
cell per configuration, the flag checks, the collectors, the session and its driver. Nodes are checked, lost
slots re-queued, busy nodes named and a cluster without usable nodes for ``node_wait_s``
stopped with one line by the dispatcher; its hazards (stored, typed) are the tuner's notes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from jvmlab.cluster.dispatch import Dispatcher
from jvmlab.errors import UserError
from jvmlab.execute.protocols import BlockRunner
from jvmlab.execute.windows import default_executor
from jvmlab.model.documents import TuneClusterDocument
from jvmlab.plan.prepare import Plan, PreparedCell
from jvmlab.store.protocol import Store
from jvmlab.tune.jvm import JvmMeasurer

NODE_WAIT_S = 60.0  # no accepted node for this long: stop with one line (no loop waits forever)

def stored_width(store: Store, experiment_id: int) -> int:
    """The width a tuning run was started with (1: started locally)."""
    doc = store.record(experiment_id, TuneClusterDocument)
    return doc.width if doc else 1


def measurer_for(store: Store, plan: Plan, experiment_id: int, artifacts: Path, client: Any) -> JvmMeasurer | None:
    """On a cluster: its nodes, one block per node at a time. A local resume of a run started on a
    cluster keeps its block numbering (nothing measured twice). Otherwise: None (this machine)."""
    if client is not None:
        return ClusterMeasurer(plan, store, experiment_id, artifacts, client)
    width = stored_width(store, experiment_id)
    return JvmMeasurer(plan, store, experiment_id, artifacts, default_executor(), width=width) if width > 1 else None


class ClusterMeasurer(JvmMeasurer):
    """Runs the tuner's blocks on the cluster's nodes, one JVM per node at a time."""

    def __init__(self, plan: Plan, store: Store, experiment_id: int, artifacts: Path, client: Any,
                 executor: Any = None, node_wait_s: float = NODE_WAIT_S) -> None:
        super().__init__(plan, store, experiment_id, artifacts, None)
        self.dispatcher = Dispatcher(client, self.open(), executor, node_wait_s=node_wait_s)
        self.dispatcher.refresh()
        if not self.nodes:
            raise UserError(f"no usable node on the cluster ({self.dispatcher.refusals()})")
        self.width = self._width()
        self.dispatcher.prefer = self._stored_nodes()

    @property
    def nodes(self) -> dict[str, Any]:
        return self.dispatcher.nodes

    @property
    def refused(self) -> dict[str, str]:
        return self.dispatcher.refused

    @property
    def busy_s(self) -> float:
        """Summed time nodes ran slots (the speed-up's numerator)."""
        return sum(t.on_node_s or 0.0 for t in self.dispatcher.timings)

    def runner(self) -> BlockRunner:
        """The Dask dispatcher: each block whole on one node, ``width`` blocks at a time."""
        return self.dispatcher

    def _prepared(self, key: str, pc: PreparedCell, cell_id: int, run_flags: tuple[str, ...]) -> PreparedCell:
        return replace(pc, cell=replace(pc.cell, index=cell_id, flags=run_flags), flags=run_flags)

    def _width(self) -> int:
        """Blocks at a time: the nodes accepted when the run started, kept for every resume (a run
        started on this machine, with invocations but no width stored, keeps its 1)."""
        doc = self.store.record(self.exp, TuneClusterDocument)
        if doc:
            return doc.width
        width = 1 if self.store.invocations(self.exp) else len(self.nodes)
        self.store.put_record(self.exp, TuneClusterDocument(width, tuple(sorted(self.nodes))))
        return width

    def _stored_nodes(self) -> dict[int, str]:
        """Block -> the node that ran its stored invocations (a resume continues a block there)."""
        nodes = self.store.invocation_nodes(self.exp)
        return {inv.block: node for inv in self.store.invocations(self.exp)
                if (node := nodes.get(inv.id)) is not None}
