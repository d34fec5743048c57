"""The client side of a cluster run: whole blocks to nodes, one slot in flight per node, each
result stored the moment it arrives, a slot lost with its node re-queued once elsewhere.

Why one slot in flight per node (not the whole block submitted at once): the order inside a block
is the randomized order, and a node lost mid-block gives back exactly the slots it had not run.

Why a done-callback queue and one gather per wake-up: the client loop is the one place every
result passes through. Waiting with ``distributed.wait`` and then calling ``result()`` per future
cost one round trip to Dask's event-loop thread per call; with 8 nodes finishing together those
queued up behind each other (on a busy 2-core machine 0.14 s per result). Now a finished future
wakes the loop by itself and the results of all finished slots come in one ``gather``.

Why parcels (:mod:`jvmlab.cluster.parcel`): what a cell's slots share (~70 kB pickled with the
final-flags table) went with every slot; now once per node, and a slot carries a token. Why a
timing per slot (:mod:`jvmlab.cluster.timing`): the loss against linear scaling is located from
the slots' own times, not guessed.
"""

from __future__ import annotations

import logging
import queue
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jvmlab.cluster.nodes import check_nodes, check_store
from jvmlab.cluster.parcel import MAX_RESENDS, ParcelMissing, Parcels, run_order
from jvmlab.cluster.share import share_target
from jvmlab.cluster.task import ARTIFACT_CAP_BYTES, NodeResult
from jvmlab.cluster.timing import SlotTiming, slot_timing
from jvmlab.cluster.wire import write_back
from jvmlab.errors import UserError
from jvmlab.execute.load import BlockShares, busy_text
from jvmlab.execute.protocols import RunnerLost
from jvmlab.execute.session import Session
from jvmlab.execute.slots import SlotWork, block_label, finish_probes
from jvmlab.model import hazards
from jvmlab.model.collected import Collected
from jvmlab.model.hazards import Hazard
from jvmlab.model.process import ProcessResult, Status
from jvmlab.plan.schedule import Slot

POLL_S = 0.2
# Loggers of Dask's client side that report a lost scheduler or connection themselves (reconnect
# and closed-comm tracebacks, logged from the event-loop thread, sometimes before the dispatcher
# notices): jvmlab says it in one line. "distributed" covers the children Dask leaves unset
# (distributed.batched printed a CommClosedError traceback when the whole cluster was killed).
CLIENT_LOGGERS = ("distributed", "distributed.client", "distributed.utils", "distributed.batched",
                  "distributed.comm", "distributed.core")


def quiet_client_logs() -> None:
    """Silence Dask's client-side logs below CRITICAL for the rest of the command."""
    for name in CLIENT_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)


DEPTH = 2  # slots submitted per node: the next one waits on the node for its `jvm` slot, hiding the round trip
MAX_REQUEUES = 1  # a slot whose node died is run once more, on another node; then it is a failure


@dataclass
class _Node:
    name: str
    block: deque[SlotWork] = field(default_factory=deque)
    inflight: deque[tuple[SlotWork, Any]] = field(default_factory=deque)  # submitted, oldest (running) first
    last_end: float | None = None  # node clock: when its last slot finished (for the timing)
    retry: list[SlotWork] = field(default_factory=list)  # slots that came back for want of a parcel

    def give_back(self) -> list[Slot]:
        """The slots submitted after the running one and those not yet submitted, in order."""
        rest = [w.slot for w, _ in list(self.inflight)[1:]] + [w.slot for w in self.block]
        self.inflight.clear()
        self.block.clear()
        return rest


@dataclass
class Dispatcher:
    """The session's Dask block runner: the pending blocks on the accepted nodes; ``run``
    returns when all are stored."""

    client: Any
    ctx: Session  # plan, store, observer, settings, state, and its slot methods
    executor: object | None = None  # a fake for tests and the bench; None: the node's real executor
    nodes: dict[str, _Node] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)  # node -> why
    requeued: dict[tuple[int, int], int] = field(default_factory=dict)
    pending: deque[list[Slot]] = field(default_factory=deque)
    started: float = field(default_factory=time.monotonic)
    completed: int = 0
    parcels: Parcels | None = None  # each cell's constant part, sent once per node (made in run)
    resent: dict[tuple[int, int], int] = field(default_factory=dict)  # slot -> times its parcel was resent
    timings: list[SlotTiming] = field(default_factory=list)  # every slot that came back, in order
    sent_at: dict[Any, float] = field(default_factory=dict)  # future key -> submit time (client clock)
    client_s: dict[tuple[int, int], float] = field(default_factory=dict)  # slot -> jvmlab's client time
    share: Path | None = None  # --artifacts-url: nodes copy artifacts there; the store records that path
    done: queue.SimpleQueue[Any] = field(default_factory=queue.SimpleQueue)  # futures that finished: wake-ups
    node_wait_s: float = 0.0  # no usable node for this long (pending work): stop with one line
    no_node_since: float | None = None
    busy_said: set[tuple[str, int]] = field(default_factory=set)  # (node, block) named busy
    prefer: dict[int, str] = field(default_factory=dict)  # block -> the node that ran its stored part (resume)
    ci_words: str = "within-node 95% CI"
    more_hint: str = "raise --max-invocations or --budget, or add nodes"

    @property
    def width(self) -> int:
        return max(1, len(self.nodes))

    def run_blocks(self, slots: list[Slot]) -> None:
        """The session's slots, each block whole on one node (warm-ups included)."""
        blocks: dict[int, list[Slot]] = {}
        for slot in slots:
            blocks.setdefault(slot.block, []).append(slot)
        self.run(list(blocks.values()))

    def run(self, blocks: list[list[Slot]]) -> None:
        if self.parcels is None:
            self.parcels = Parcels(self.ctx.settings)
        self.pending.extend(b for b in blocks if b)
        last_check = 0.0
        try:
            while self.pending or any(n.inflight or n.block for n in self.nodes.values()):
                if time.monotonic() - last_check > 1.0:
                    self.refresh()
                    last_check = time.monotonic()
                self._assign()
                self._wait()
        except BaseException:
            self.cancel()
            raise
        finally:
            self._drain()

    def _drain(self) -> None:
        """Drop the wake-ups left: a future referenced past the client's close is released late,
        into a closed connection (a CommClosedError traceback at shutdown)."""
        while not self.done.empty():
            self.done.get_nowait()

    def cancel(self) -> None:
        """Ctrl-C: drop every outstanding task; what finished is already stored."""
        futures = [f for n in self.nodes.values() for _, f in n.inflight]
        if futures and self.client.status == "running":
            self.client.cancel(futures, force=True)

    def _live(self) -> list[str]:
        """The scheduler's workers now; RunnerLost when the scheduler itself is gone (the whole
        cluster killed: Dask's client then has no scheduler information left)."""
        info = self.client.scheduler_info(n_workers=-1) if self.client.status == "running" else {}
        if "workers" not in info:
            quiet_client_logs()  # its reconnect tracebacks: not news
            raise RunnerLost("the Dask cluster went away (its scheduler no longer answers)")
        return list(info["workers"])

    # -- nodes ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """Take the scheduler's workers now: accept or refuse the new ones, forget the gone ones."""
        live = self._live()
        ctx = self.ctx
        check_store(ctx.store.url, live)
        for name in [n for n in self.nodes if n not in live]:
            self._lost(self.nodes.pop(name))
            if self.parcels is not None:
                self.parcels.forget_node(name)
        new = [a for a in live if a not in self.nodes and a not in self.refused]
        if new:
            homes = [str(h) for h in ctx.plan.jdk_homes]
            for check in check_nodes(self.client, new, homes):
                ctx.store.put_node(ctx.state.experiment_id, check.name, check.identity, check.refused)
                if check.refused:
                    self.refused[check.name] = check.refused
                    ctx.warn(Hazard(hazards.NODE_REFUSED, f"node {check.name} refused: {check.refused}",
                                    hint="install the same JDK build on every node "
                                         "(or map its path with JVMLAB_JDK_MAP)"))
                else:
                    self.nodes[check.name] = _Node(check.name)
        if self.nodes or not self.pending:
            self.no_node_since = None
        else:
            since = self.no_node_since = self.no_node_since or time.monotonic()
            if self.node_wait_s <= 0:
                raise UserError(f"no usable node on the cluster ({self.refusals()}); see the refusals above")
            if time.monotonic() - since > self.node_wait_s:
                raise UserError(f"no usable Dask worker for {self.node_wait_s:.0f} s ({self.refusals()}); "
                                f"everything measured is stored: {self.ctx.continue_hint()}")
        self._progress()

    def refusals(self) -> str:
        return "; ".join(f"{n}: {why}" for n, why in sorted(self.refused.items())) or "no workers left"

    def _lost(self, node: _Node) -> None:
        """A node vanished: its in-flight slot is re-queued once, the rest of its block goes back whole."""
        running = node.inflight[0][0] if node.inflight else None
        if node.inflight:
            self.client.cancel([f for _, f in node.inflight], force=True)
        self._requeue(node.name, running, node.give_back())

    def _requeue(self, name: str, work: SlotWork | None, rest: list[Slot]) -> None:
        if work is not None:
            key = (work.slot.cell_index, work.slot.block)
            if self.requeued.get(key, 0) >= MAX_REQUEUES:
                reason = f"lost twice: node {name} died while running it, after one re-queue"
                self._store(work, _failed_result(reason), Collected(), name)
            else:
                self.requeued[key] = self.requeued.get(key, 0) + 1
                rest.insert(0, work.slot)
                self.ctx.warn(Hazard(
                    hazards.NODE_LOST, f"node {name} was lost while running {work.cell.cell.name} "
                    f"({block_label(work.slot.block)}); it re-runs on another node with the rest of its block, "
                    f"so its pairs span two nodes", cell=work.cell.cell.name))
        if rest:
            self.pending.appendleft(rest)

    # -- slots ---------------------------------------------------------------------------
    def _assign(self) -> None:
        """Breadth first: every idle node gets a slot before any node gets a second one (at 8
        nodes, filling node by node left the last nodes idle for a round trip), then each node is
        topped up to :data:`DEPTH`."""
        nodes = list(self.nodes.values())
        for node in sorted(nodes, key=lambda n: len(n.inflight)):
            if not node.inflight:
                self._top_up(node, 1)
        for node in nodes:
            self._top_up(node, DEPTH)

    def _top_up(self, node: _Node, depth: int) -> None:
        while len(node.inflight) < depth:
            if not node.block and (slots := self._next_block(node.name)):  # queued behind the last slots
                t0 = time.perf_counter()
                node.block.extend(self.ctx.prepare_slot(s) for s in slots)
                share = (time.perf_counter() - t0) / max(1, len(node.block))
                for w in node.block:
                    self._charge(w, share)
            if not node.block:
                break
            work = node.block.popleft()
            if not self._budget_allows(work):
                continue
            self._submit(node, work)

    def _next_block(self, name: str) -> list[Slot] | None:
        """The first pending block this node may take: a half-run block (resume) goes back to the
        node that ran its stored part while that node is there, so its pairs stay on one node."""
        for i, slots in enumerate(self.pending):
            want = self.prefer.get(slots[0].block) if slots else None
            if want is None or want == name or want not in self.nodes:
                del self.pending[i]
                return slots
        return None

    def _submit(self, node: _Node, work: SlotWork) -> None:
        t0 = time.perf_counter()
        key = (work.slot.cell_index, work.slot.block)
        if key not in self.resent:
            self.ctx.observer.starting(work.cell, work.slot)
        assert self.parcels is not None  # made in run
        order = self.parcels.order(node.name, work, self._share_to(work))
        future = self.client.submit(run_order, order, self.executor, workers=[node.name],
                                    allow_other_workers=False, resources={"jvm": 1}, pure=False)
        future.add_done_callback(self.done.put)
        node.inflight.append((work, future))
        self.sent_at[future.key] = time.time()
        self._charge(work, time.perf_counter() - t0)

    def _charge(self, work: SlotWork, seconds: float) -> None:
        key = (work.slot.cell_index, work.slot.block)
        self.client_s[key] = self.client_s.get(key, 0.0) + seconds

    def _budget_allows(self, work: SlotWork) -> bool:
        """The session's one budget; measured slots in flight count too, so a round of blocks
        on many nodes does not overshoot --max-invocations."""
        inflight = sum(1 for n in self.nodes.values() for w, _ in n.inflight if not w.slot.warmup)
        verdict = self.ctx.allows(work.slot, inflight)
        if verdict == "stop":
            self.pending.clear()
            for node in self.nodes.values():
                node.block.clear()
        return verdict == "run"

    def _share_to(self, work: SlotWork) -> str | None:
        if self.share is None:
            return None
        return str(share_target(self.share, self.ctx.options.artifacts_root, work.artifacts))

    def _wait(self) -> None:
        """Sleep until a slot finishes (a done-callback puts it on ``done``) or POLL_S passes, then
        take every finished head slot, in each node's order, with one gather for their results."""
        heads = [n.inflight[0][1] for n in self.nodes.values() if n.inflight]
        if not heads:
            time.sleep(POLL_S) if self.pending else None
            return
        if all(f.status == "pending" for f in heads):
            try:
                self.done.get(timeout=POLL_S)
            except queue.Empty:  # nothing finished yet: look at the nodes again
                pass
        self._drain()  # every finished future is read from its node below
        # A snapshot: a slot finishing from here on wakes the next round (its callback is queued).
        done = [(node, _done_prefix(node)) for node in list(self.nodes.values())]
        values = self._gather([node.inflight[i][1] for node, count in done for i in range(count)])
        for node, count in done:
            for _ in range(count):
                if not node.inflight:  # a killed worker gave its block back
                    break
                work, future = node.inflight.popleft()
                self._finished(node, work, future, values.get(future.key))
            if node.retry:  # back to the head of the block, in their order
                node.block.extendleft(reversed(node.retry))
                node.retry.clear()
        self._progress()

    def _gather(self, futures: list[Any]) -> dict[Any, Any]:
        """The results of the finished futures in one round trip (key -> NodeResult); errors and
        a failed gather leave them out, to be read one by one in :meth:`_finished`."""
        finished = [f for f in futures if f.status == "finished"]
        if not finished:
            return {}
        try:
            return dict(zip([f.key for f in finished], self.client.gather(finished, errors="skip"), strict=True))
        except Exception:  # noqa: BLE001 - e.g. a worker lost between finishing and the gather
            return {}

    def _finished(self, node: _Node, work: SlotWork, future: Any, value: NodeResult | ParcelMissing | None = None,
                  ) -> None:
        outcome: NodeResult | ParcelMissing | None = value
        if future.status == "finished" and outcome is None:
            try:
                outcome = future.result()
            except Exception as err:  # cancelled after the status was read: the scheduler was lost
                if not _lost_with_cluster(err):
                    raise
        if outcome is not None:
            if isinstance(outcome, ParcelMissing):
                self._parcel_missing(node, work, outcome, future.key)
                return
            self._store(work, outcome.result, outcome.collected, node.name, outcome, future.key)
        elif future.status != "error" or _lost_with_cluster(_error_of(future)):  # cancelled, or its connection closed
            self._live()  # the whole cluster gone: the session is interrupted, nothing stored
            rest = [w.slot for w, _ in node.inflight] + [w.slot for w in node.block]
            node.inflight.clear()
            node.block.clear()
            self.pending.appendleft([work.slot, *rest])
        elif type(_error_of(future)).__name__ == "KilledWorker":
            node.inflight.appendleft((work, future))
            later = [f for _, f in list(node.inflight)[1:]]
            if later:
                self.client.cancel(later, force=True)
            self._requeue(node.name, work, node.give_back())
        else:
            reason = f"the task failed on node {node.name}: {_error_of(future)!r}"
            self._store(work, _failed_result(reason), Collected(), node.name, None, future.key)

    def _parcel_missing(self, node: _Node, work: SlotWork, missing: ParcelMissing, future_key: Any) -> None:
        """The node lacked the cell's parcel: the slot goes back to the head of its node's block,
        to be sent with the parcel inside; after MAX_RESENDS it is a failure with the reason."""
        assert self.parcels is not None
        self.parcels.lost(missing)
        self.sent_at.pop(future_key, None)
        key = (work.slot.cell_index, work.slot.block)
        if self.resent.get(key, 0) >= MAX_RESENDS:
            reason = (f"node {node.name} lacked the cell's parcel {missing.token} after it was sent "
                      f"{MAX_RESENDS} more times")
            self._store(work, _failed_result(reason), Collected(), node.name)
            return
        self.resent[key] = self.resent.get(key, 0) + 1
        node.retry.append(work)

    def _store(self, work: SlotWork, result: ProcessResult, collected: Collected, node: str,
               outcome: NodeResult | None = None, future_key: Any = None) -> None:
        t0 = time.perf_counter()
        ctx = self.ctx
        if outcome is not None:
            work = self._artifacts_back(work, outcome)
            self._busy(node, work.slot.block, BlockShares(outcome.other_share, outcome.steal_share))
        result, collected = finish_probes(replace(work, probes=[]), result, collected)
        ctx.record_slot(work, result, collected, node=node, host=outcome.host if outcome is not None else None)
        self.completed += 1
        self._charge(work, time.perf_counter() - t0)
        self._time(work, node, outcome, future_key)

    def _busy(self, node: str, block: int, shares: BlockShares) -> None:
        """The machine check between blocks, on the node: other processes' and steal's CPU share
        during a slot."""
        if not shares.busy or (node, block) in self.busy_said:
            return
        self.busy_said.add((node, block))
        self.ctx.warn(Hazard(hazards.BUSY_MACHINE, f"node {node} busy: {busy_text(shares, block_label(block))}",
                             hint="stop other work on that node, or rerun",
                             load=shares.machine_load(block, node=node)))

    def _time(self, work: SlotWork, node: str, outcome: NodeResult | None, future_key: Any) -> None:
        submitted = self.sent_at.pop(future_key, None)
        if submitted is None:  # stored without a task of its own (lost twice, over the resends)
            return
        key = (work.slot.cell_index, work.slot.block)
        state = self.nodes.get(node)
        previous = state.last_end if state is not None else None
        started = outcome.started_at if outcome is not None else None
        finished = outcome.finished_at if outcome is not None else None
        self.timings.append(slot_timing(node, submitted, time.time(), self.client_s.pop(key, 0.0), started,
                                        finished, outcome.run_s if outcome is not None else None, previous))
        if state is not None and finished is not None:
            state.last_end = finished

    def _artifacts_back(self, work: SlotWork, outcome: NodeResult) -> SlotWork:
        """Record where the artifacts are: on the share, or written back here; name any left behind."""
        if outcome.shared_dir is not None:
            return replace(work, artifacts=Path(outcome.shared_dir))
        write_back(work, outcome)
        cell = work.cell.cell.name
        if outcome.share_error:
            self.ctx.warn(Hazard(hazards.ARTIFACTS_ON_NODE, f"node {outcome.node}: {outcome.share_error}; "
                                 f"the artifacts came back with the result instead", cell=cell))
        if outcome.artifacts_left_on_node:
            left = ", ".join(outcome.artifacts_left_on_node[:3])
            more = len(outcome.artifacts_left_on_node) - 3
            self.ctx.warn(Hazard(
                hazards.ARTIFACTS_ON_NODE, f"{cell} ({block_label(work.slot.block)}): over {ARTIFACT_CAP_BYTES >> 20} "
                f"MiB of artifacts, so {left}{f' and {more} more' if more > 0 else ''} stayed in "
                f"{work.invocation.artifacts_dir} on node {outcome.node}",
                hint="give a shared folder with --artifacts-url file:///PATH to keep every artifact", cell=cell))
        return work

    def _progress(self) -> None:
        tell = getattr(self.ctx.observer, "nodes", None)
        if tell is None:
            return
        busy = sum(1 for n in self.nodes.values() if n.inflight)
        elapsed = time.monotonic() - self.started
        tell(busy, len(self.nodes) - busy, self.completed / elapsed if elapsed > 0 else None)


def _done_prefix(node: _Node) -> int:
    """How many of the node's in-flight slots, oldest first, are no longer pending."""
    count = 0
    for _, future in node.inflight:
        if future.status == "pending":
            break
        count += 1
    return count


def _failed_result(reason: str) -> ProcessResult:
    return ProcessResult(Status.FAILED, reason, None, None, None, None, time.time())


_LOST = ("CommClosedError", "CancelledError", "FutureCancelledError")


def _error_of(future: Any) -> BaseException | None:
    """The task's exception; a cancelled future (the scheduler lost) raises it instead of
    returning it, and that is the answer too."""
    try:
        err: BaseException | None = future.exception()
        return err
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C while asking: the session's to handle
        raise
    except BaseException as err:  # noqa: BLE001 - FutureCancelledError, asyncio's CancelledError
        return err


def _lost_with_cluster(err: BaseException | None) -> bool:
    return type(err).__name__ in _LOST
