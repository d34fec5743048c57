"""`jvmlab tune --cluster`: the tuner's invocations run on a Dask cluster's nodes.

The tuner asks for whole blocks (`Session.blocks`): a race block is the candidate and the
incumbent in their seeded order, and it runs whole on ONE node, so that node's offset cancels
in the block's paired ratio. With ``width`` nodes, that many blocks of a race run at once on
different nodes (the speed-up); blocks a decided race no longer needs are stored, unused.
The width is fixed when the run starts (the nodes accepted then) and stored with the
experiment, so `--resume` on any number of nodes numbers the blocks the same way and
measures nothing twice.

Everything else is the local measurer's (``JvmMeasurer``): the store as the only memory, one
cell per configuration, the flag checks, the collectors. Nodes are checked as `run --cluster`
checks them (same JDK build, else refused with the reason), every invocation is stored the
moment it arrives with its node, a node lost mid-slot re-runs the rest of its block on another
node once, and when no node is left for ``node_wait_s`` the run stops with one line.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jvmlab.cluster import run as cluster_run
from jvmlab.cluster.nodes import check_nodes, check_store
from jvmlab.cluster.parcel import MAX_RESENDS, ParcelMissing, Parcels, SlotOrder, run_order
from jvmlab.cluster.task import NodeResult
from jvmlab.cluster.wire import write_back
from jvmlab.errors import UserError
from jvmlab.execute.load import BUSY_SHARE, LoadWatch
from jvmlab.execute.slots import SlotWork, build_slot, finish_probes
from jvmlab.model.collected import Collected
from jvmlab.model.process import ProcessResult, Status
from jvmlab.plan.prepare import Plan
from jvmlab.plan.schedule import Slot
from jvmlab.store.protocol import Store
from jvmlab.tune.jvm import JvmMeasurer, _metrics_of_result
from jvmlab.tune.model import Metrics

DOC_KIND = "tune-cluster"  # experiment document: {"width": blocks at a time, "nodes": accepted at start}
POLL_S = 0.2
REFRESH_S = 1.0
NODE_WAIT_S = 60.0  # no accepted node for this long: stop with one line (no loop waits forever)
SLOT_GRACE_S = 120.0  # a slot running this long past its own timeout: its node is treated as lost
DEPTH = 2  # slots of a block submitted to its node at once
MAX_REQUEUES = 1  # a slot whose node died runs once more elsewhere; lost again, it is a failure

Entry = tuple[str, tuple[str, ...]]  # (jvm, flags) at one position of a block


@dataclass
class _InFlight:
    """One slot submitted to a node: its position, what was sent, the Dask future."""

    pos: int
    work: SlotWork
    future: Any
    since: float | None  # when it became the node's next slot (busy time and the slot's deadline count from it)


@dataclass
class _Block:
    """One block's slots still to run, in their order, and the node it is tied to."""

    number: int
    entries: dict[int, Entry]  # position -> configuration, the positions still to run
    node: str | None = None
    prefer: str | None = None  # the node that ran its stored part (a resumed, half-run block)
    inflight: deque[_InFlight] = field(default_factory=deque)  # submitted to its node, oldest (running) first
    lost: dict[int, int] = field(default_factory=dict)  # position -> times its node died under it
    resent: dict[int, int] = field(default_factory=dict)  # position -> times its node lacked its parcel
    busy: float | None = None  # the largest CPU share other processes took on its node during a slot


def stored_width(store: Store, experiment_id: int) -> int:
    """The width a tuning run was started with (1: started locally)."""
    doc = store.experiment_document(experiment_id, DOC_KIND)
    return int(doc["width"]) if doc else 1


def wait_for_workers(client: Any, store_url: str, timeout_s: float = NODE_WAIT_S) -> list[str]:
    """As `run --cluster` waits: some worker there, SQLite only with local ones."""
    return cluster_run.wait_for_workers(client, store_url, timeout_s)


class WidthReplay(JvmMeasurer):
    """A local `--resume` of a run started with --cluster: the same block numbering (``width``
    blocks at a time), run one after another on this machine."""

    def __init__(self, *args: Any, width: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.width = width


class ClusterMeasurer(JvmMeasurer):
    """Runs the tuner's blocks on the cluster's nodes, one JVM per node at a time."""

    def __init__(self, plan: Plan, store: Store, experiment_id: int, artifacts: Path, client: Any,
                 executor: Any = None, node_wait_s: float = NODE_WAIT_S) -> None:
        super().__init__(plan, store, experiment_id, artifacts, executor)
        self.client, self.node_wait_s = client, node_wait_s
        self.nodes: set[str] = set()
        self.refused: dict[str, str] = {}
        self.notes: list[str] = []  # refusals, losses: said with the next block
        self.block_notes: deque[list[str]] = deque()  # the last round's hazards, one list per block, in order
        self.parcels = Parcels(self.settings)  # each cell's constant part, sent once per node
        self.busy_s = 0.0  # summed time nodes held a slot (the speed-up's numerator)
        self.rounds = 0  # rounds of blocks sent to the nodes (blocks / rounds: the parallelism used)
        self.blocks_run = 0
        self.active: dict[str, _Block] = {}  # node -> the block it runs now
        self._refresh(time.monotonic())
        if not self.nodes:
            raise UserError(f"no usable node on the cluster ({self._refusals()})")
        self.width = self._width()
        self.block_node = self._stored_nodes()

    # -- the measurer interface ------------------------------------------------------------
    def block_hazards(self) -> list[str]:
        """The next block's hazards, in the order the session asks (the round's order): its node
        busy during a slot, and node refusals and losses (each node's identity at join is stored)."""
        if self.block_notes:
            return self.block_notes.popleft()
        out, self.notes = self.notes, []
        return out

    def measure(self, jvm: str, flags: tuple[str, ...], block: int, position: int) -> Metrics | str:
        return self._run({block: {position: (jvm, flags)}})[(block, position)]

    def measure_blocks(self, blocks: dict[int, list[Entry]]) -> dict[int, list[Metrics | str]]:
        """Each block's configurations in their order -> their results, blocks in parallel on nodes."""
        got = self._run({b: dict(enumerate(entries)) for b, entries in blocks.items()})
        return {b: [got[(b, pos)] for pos in range(len(entries))] for b, entries in blocks.items()}

    # -- one round of blocks -----------------------------------------------------------------
    def _run(self, wanted: dict[int, dict[int, Entry]]) -> dict[tuple[int, int], Metrics | str]:
        out: dict[tuple[int, int], Metrics | str] = {}
        queue: deque[_Block] = deque()
        self.block_notes.clear()
        for b, entries in wanted.items():
            todo = {}
            for pos, (jvm, flags) in entries.items():
                key = (b, pos, f"{jvm}|{' '.join(flags)}")
                if key in self.history:
                    self.replayed += 1
                    out[(b, pos)] = self.history[key]
                else:
                    todo[pos] = (jvm, flags)
            if todo:
                queue.append(_Block(b, todo, prefer=self.block_node.get(b)))
        blocks = list(queue)
        if queue:
            self.rounds += 1
            self.blocks_run += len(queue)
            try:
                self._dispatch(queue, out)
            except BaseException:
                self._cancel()
                raise
        self._notes_per_block(list(wanted), blocks)
        return out

    def _notes_per_block(self, order: list[int], blocks: list[_Block]) -> None:
        """Busy nodes go with their block; refusals and losses with the round's first block."""
        busy = {b.number: f"node {b.node} busy: other processes used {b.busy:.0%} of its CPU during the block"
                for b in blocks if b.busy is not None and b.busy > BUSY_SHARE}
        for i, number in enumerate(order):
            self.block_notes.append(([*self.notes] if i == 0 else []) + ([busy[number]] if number in busy else []))
        self.notes = []

    def _dispatch(self, queue: deque[_Block], out: dict[tuple[int, int], Metrics | str]) -> None:
        active = self.active
        last_refresh = no_node_since = time.monotonic()
        while queue or active:
            now = time.monotonic()
            if now - last_refresh > REFRESH_S:
                self._refresh(now)
                last_refresh = now
                for name in [n for n in active if n not in self.nodes]:
                    self._lost(active.pop(name), queue, out, f"node {name} left the cluster")
            if self.nodes:
                no_node_since = now
            elif now - no_node_since > self.node_wait_s:
                raise UserError(f"no usable Dask worker for {self.node_wait_s:.0f} s ({self._refusals()}); "
                                f"everything measured is stored: continue with `jvmlab tune SPEC --resume "
                                f"--cluster ADDRESS`")
            self._assign(queue, active)
            self._wait(active)
            for name, blk in list(active.items()):
                if self._collect(name, blk, queue, out):
                    del active[name]

    def _assign(self, queue: deque[_Block], active: dict[str, _Block]) -> None:
        """Each idle node takes a block (its own half-run block first) and runs its next slot."""
        for name in sorted(self.nodes - set(active)):
            blk = next((b for b in queue if b.prefer == name), None) or next(
                (b for b in queue if b.prefer not in self.nodes), None)
            if blk is None:
                continue
            queue.remove(blk)
            if blk.node is not None and blk.node != name:
                self.notes.append(f"block {blk.number} continues on node {name} after node {blk.node} was lost: "
                                  f"its pairs span two nodes")
            blk.node = name
            active[name] = blk
        for name, blk in active.items():
            self._submit(name, blk)

    def _submit(self, name: str, blk: _Block) -> None:
        """Keep DEPTH slots of the block on its node: the next one waits there for the `jvm` slot
        (Dask runs one client's tasks on a worker in the order submitted), so no round trip is lost."""
        sent = {f.pos for f in blk.inflight}
        for pos in sorted(p for p in blk.entries if p not in sent)[:DEPTH - len(blk.inflight)]:
            jvm, flags = blk.entries[pos]
            work = self._work(jvm, flags, blk.number, pos)
            future = self.client.submit(run_order_watched, self.parcels.order(name, work), self.executor,
                                        workers=[name], allow_other_workers=False, resources={"jvm": 1},
                                        pure=False)
            blk.inflight.append(_InFlight(pos, work, future, time.monotonic() if not blk.inflight else None))

    def _wait(self, active: dict[str, _Block]) -> None:
        from distributed import wait

        futures = [b.inflight[0].future for b in active.values() if b.inflight]
        if not futures:
            time.sleep(POLL_S)
        elif all(f.status == "pending" for f in futures):
            try:
                wait(futures, timeout=POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                pass

    def _collect(self, name: str, blk: _Block, queue: deque[_Block],
                 out: dict[tuple[int, int], Metrics | str]) -> bool:
        """Store the node's finished slots in their order; True when its block is done (or went
        back to the queue)."""
        while blk.inflight:
            head = blk.inflight[0]
            now = time.monotonic()
            head.since = head.since or now  # it runs (or waits for the node) from when it is first in line
            if head.future.status == "pending":
                limit = head.work.invocation.timeout_s
                if now - head.since > limit + SLOT_GRACE_S:
                    self._lost(blk, queue, out, f"node {name} did not answer within {limit + SLOT_GRACE_S:.0f} s")
                    return True
                return False
            if head.future.status not in ("finished", "error") or (
                    head.future.status == "error" and type(head.future.exception()).__name__ == "KilledWorker"):
                self._lost(blk, queue, out, f"node {name} was lost while running it")  # the worker died under it
                return True
            blk.inflight.popleft()
            if head.future.status == "finished":
                outcome, other_share = head.future.result()
                if isinstance(outcome, ParcelMissing):
                    if self._parcel_missing(blk, head, outcome, out):
                        continue
                    return False  # sent again with the parcel by the next _submit
                self.busy_s += now - head.since
                if other_share is not None:
                    blk.busy = max(blk.busy or 0.0, other_share)
                got = self._store(blk, head.pos, head.work, outcome.result, outcome.collected, name, outcome)
            else:
                reason = f"the task failed on node {name}: {head.future.exception()!r}"
                got = self._store(blk, head.pos, head.work, _failed(reason), Collected(), name)
            out[(blk.number, head.pos)] = got
            del blk.entries[head.pos]
        return not blk.entries

    def _parcel_missing(self, blk: _Block, head: _InFlight, missing: ParcelMissing,
                        out: dict[tuple[int, int], Metrics | str]) -> bool:
        """The node lacked the cell's parcel: the slot is sent again with it (its position stays to
        run); after MAX_RESENDS it is a failure. True when it was stored as one."""
        self.parcels.lost(missing)
        blk.resent[head.pos] = blk.resent.get(head.pos, 0) + 1
        if blk.resent[head.pos] <= MAX_RESENDS:
            return False
        reason = (f"node {missing.node} lacked the cell's parcel {missing.token} after it was sent "
                  f"{MAX_RESENDS} more times")
        out[(blk.number, head.pos)] = self._store(blk, head.pos, head.work, _failed(reason), Collected(), missing.node)
        del blk.entries[head.pos]
        return True

    def _lost(self, blk: _Block, queue: deque[_Block], out: dict[tuple[int, int], Metrics | str], why: str) -> None:
        """The running slot re-runs once on another node with the rest of its block; twice lost, a failure."""
        if blk.inflight:
            self.client.cancel([f.future for f in blk.inflight], force=True)
            head = blk.inflight[0]
            blk.inflight.clear()
            blk.lost[head.pos] = blk.lost.get(head.pos, 0) + 1
            if blk.lost[head.pos] > MAX_REQUEUES:
                out[(blk.number, head.pos)] = self._store(
                    blk, head.pos, head.work, _failed(f"lost twice: {why}, after one re-run"), Collected(), blk.node)
                del blk.entries[head.pos]
            else:
                self.notes.append(f"block {blk.number}: {why}; its slot re-runs on another node")
        if blk.entries:
            blk.prefer = None
            queue.appendleft(blk)

    def _cancel(self) -> None:
        """Ctrl-C or a stop: drop what is outstanding; everything finished is stored."""
        futures = [f.future for b in self.active.values() for f in b.inflight]
        self.active.clear()
        if futures:
            self.client.cancel(futures, force=True)

    # -- slots ----------------------------------------------------------------------------------
    def _work(self, jvm: str, flags: tuple[str, ...], block: int, position: int) -> SlotWork:
        """The slot as `JvmMeasurer.measure` builds it: the plan's cell for this JDK with the trial's flags."""
        run_flags = self.flags_to_run(jvm, flags)
        pc = self._cell(jvm)
        cell_id = self._cell_id(f"{jvm}|{' '.join(flags)}", jvm, pc, flags, run_flags)
        cell = replace(pc, cell=replace(pc.cell, index=cell_id, flags=run_flags), flags=run_flags)
        artifacts = self.artifacts / f"exp-{self.exp}" / f"cell-{cell_id}" / f"b{block}"
        return build_slot(cell, Slot(cell_id, block, position), self._collectors(pc), artifacts)

    def _store(self, blk: _Block, pos: int, work: SlotWork, result: ProcessResult, collected: Collected,
               node: str | None, outcome: NodeResult | None = None) -> Metrics | str:
        """Stored the moment it arrives, with its node; the artifacts written back here."""
        if outcome is not None:
            write_back(work, outcome)
        result, collected = finish_probes(replace(work, probes=[]), result, collected)
        self.measured += 1
        slot = work.slot
        session = self.open()
        session.use_cell(work.cell, slot.cell_index, [])
        session.record_slot(work, result, collected, node=node)  # one transaction, as every slot
        session.recorded.pop((slot.cell_index, slot.block), None)
        got: Metrics | str = (result.reason or str(result.status) if result.status != Status.OK
                              or result.measures is None else _metrics_of_result(result, collected))
        jvm, flags = blk.entries[pos]
        self.history[(slot.block, slot.position, f"{jvm}|{' '.join(flags)}")] = got
        return got

    # -- nodes ------------------------------------------------------------------------------------
    def _refresh(self, now: float) -> None:
        """Accept new workers whose JDK builds match (stored with their identity); forget gone ones."""
        live = list(self.client.scheduler_info(n_workers=-1)["workers"])
        check_store(self.store.url, live)
        self.nodes &= set(live)
        new = [a for a in live if a not in self.nodes and a not in self.refused]
        if not new:
            return
        for check in check_nodes(self.client, new, [str(h) for h in self.plan.jdk_homes]):
            self.store.put_node(self.exp, check.name, check.identity, check.refused)
            if check.refused:
                self.refused[check.name] = check.refused
                self.notes.append(f"node {check.name} refused: {check.refused}")
            else:
                self.nodes.add(check.name)

    def _refusals(self) -> str:
        return "; ".join(f"{n}: {why}" for n, why in sorted(self.refused.items())) or "no workers left"

    def _width(self) -> int:
        """Blocks at a time: the nodes accepted when the run started, kept for every resume (a run
        started on this machine, with invocations but no width stored, keeps its 1)."""
        doc = self.store.experiment_document(self.exp, DOC_KIND)
        if doc:
            return int(doc["width"])
        width = 1 if self.store.invocations(self.exp) else len(self.nodes)
        self.store.put_experiment_document(self.exp, DOC_KIND, {"width": width, "nodes": sorted(self.nodes)})
        return width

    def _stored_nodes(self) -> dict[int, str]:
        """Block -> the node that ran its stored invocations (a resume continues a block there)."""
        nodes = self.store.invocation_nodes(self.exp)
        return {inv.block: node for inv in self.store.invocations(self.exp)
                if (node := nodes.get(inv.id)) is not None}


def run_order_watched(order: SlotOrder, executor: Any = None) -> tuple[NodeResult | ParcelMissing, float | None]:
    """On the node: the slot from its parcel (``cluster.parcel.run_order``) and the CPU share other
    processes took on the node meanwhile (the local tuner's busy check, per node)."""
    watch = LoadWatch()
    watch.start()
    outcome = run_order(order, executor)
    return outcome, watch.other_share()


def _failed(reason: str) -> ProcessResult:
    return ProcessResult(Status.FAILED, reason, None, None, None, None, time.time())
