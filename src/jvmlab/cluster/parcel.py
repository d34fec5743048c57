"""Parcels: what every slot of a cell shares (the invocation template, the probe recipe with the
cell's final flags, the built-in workload's classes) travels to a node once, and each slot then
names it by a token.

Why: the constant part is most of a slot's message (the PrintFlagsFinal table alone is some 800
entries), and pickling it on the client and unpickling it on the node for every slot was client
and node time spent per invocation. Now a slot carries its argv, its artifacts folder and the
token.

A node keeps its parcels on a shelf (a bounded number per worker). A slot whose token the node
lacks (a restarted worker, an evicted parcel) answers :class:`ParcelMissing` instead of running;
the client sends it again with the parcel inside, at most :data:`MAX_RESENDS` times, then stores
the slot as failed with the reason. The token is a hash of the parcel's content (its records are
dataclasses whose repr shows every field), so two clients or two experiments on one long-lived
cluster never mix their parcels, and identical cells share one.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from jvmlab.cluster.task import NodeResult, ProbeRecipe, ensure_shipped, run_slot
from jvmlab.cluster.wire import ClassPacks, probe_recipe

if TYPE_CHECKING:
    from jvmlab.collect.registry import CollectSettings
    from jvmlab.execute.protocols import Executor
    from jvmlab.execute.slots import SlotWork
    from jvmlab.model.process import InvocationPlan

MAX_RESENDS = 3  # a slot whose node keeps lacking its parcel is then a failure, with the reason
SHELF_CAPACITY = 256  # parcels a node keeps (the oldest go first); a cell's parcel is a few kB to 100 kB
_NOWHERE = Path("/nonexistent-jvmlab-parcel")  # the template's artifacts folder: each slot names its own


@dataclass(frozen=True)
class Parcel:
    """The constant part of one cell's slots, as the node needs it."""

    token: str
    template: InvocationPlan  # argv and artifacts folder left empty: each slot brings its own
    recipe: ProbeRecipe  # its context's artifacts folder is replaced per slot
    shipped: dict[str, dict[str, bytes]]  # a built-in workload's classes (folder -> files)


@dataclass(frozen=True)
class SlotOrder:
    """What travels per slot: the token, the slot's own argv and folder, and the parcel itself
    when the client has not sent it to this node yet (or the node said it lacks it)."""

    token: str
    argv: tuple[str, ...]
    artifacts_dir: Path
    share_to: str | None = None
    parcel: Parcel | None = None
    serial: int = 0  # the client's count of orders: tells a late ParcelMissing from a new one


@dataclass(frozen=True)
class ParcelMissing:
    """The node's answer to a slot whose parcel it does not hold: nothing was run."""

    node: str
    token: str
    serial: int  # the order's: a parcel sent after it already answers it


def make_parcel(settings: CollectSettings, work: SlotWork, packs: ClassPacks) -> Parcel:
    """The cell's parcel, taken from one of its slots (everything but the argv and the folder)."""
    template = replace(work.invocation, argv=(), artifacts_dir=_NOWHERE)
    recipe = probe_recipe(settings, work)
    recipe = replace(recipe, ctx=replace(recipe.ctx, artifacts_dir=_NOWHERE))
    shipped = packs.of(work)
    digest = hashlib.sha256(repr((template, recipe, sorted((k, sorted(v.items())) for k, v in shipped.items())))
                            .encode()).hexdigest()[:20]
    return Parcel(f"parcel-{digest}", template, recipe, shipped)


@dataclass
class Parcels:
    """The client's side: one parcel per cell, made once, and which node was sent which."""

    settings: CollectSettings
    packs: ClassPacks = field(default_factory=ClassPacks)
    by_cell: dict[int, Parcel] = field(default_factory=dict)
    sent: dict[str, dict[str, int]] = field(default_factory=dict)  # node -> token -> serial of its shipment
    serial: int = 0

    def order(self, node: str, work: SlotWork, share_to: str | None = None) -> SlotOrder:
        """The slot's order for ``node``, with the parcel inside if the node has not had it."""
        index = work.cell.cell.index
        parcel = self.by_cell.get(index)
        if parcel is None:
            parcel = self.by_cell[index] = make_parcel(self.settings, work, self.packs)
        self.serial += 1
        have = self.sent.setdefault(node, {})
        inside = None
        if parcel.token not in have:
            have[parcel.token] = self.serial
            inside = parcel
        return SlotOrder(parcel.token, work.invocation.argv, work.invocation.artifacts_dir, share_to, inside,
                         self.serial)

    def lost(self, missing: ParcelMissing) -> None:
        """The node said it lacks a parcel: its next order carries it again, unless it was sent
        again after the order that missed it (orders in flight behind it missed it too; the node
        runs its orders in the order sent, so that shipment arrives first)."""
        have = self.sent.get(missing.node, {})
        if have.get(missing.token, 0) <= missing.serial:
            have.pop(missing.token, None)

    def forget_node(self, node: str) -> None:
        self.sent.pop(node, None)


class Shelf:
    """A node's parcels, by worker (in-process test clusters share this module), oldest out first."""

    def __init__(self, capacity: int = SHELF_CAPACITY) -> None:
        self.capacity = capacity
        self._lock = threading.Lock()
        self._held: dict[str, OrderedDict[str, Parcel]] = {}

    def keep(self, node: str, parcel: Parcel) -> None:
        with self._lock:
            held = self._held.setdefault(node, OrderedDict())
            held[parcel.token] = parcel
            held.move_to_end(parcel.token)
            while len(held) > self.capacity:
                held.popitem(last=False)

    def take(self, node: str, token: str) -> Parcel | None:
        with self._lock:
            return self._held.get(node, OrderedDict()).get(token)

    def clear(self) -> int:
        """Drop every parcel; how many there were."""
        with self._lock:
            count = sum(len(held) for held in self._held.values())
            self._held.clear()
        return count


SHELF = Shelf()


def run_order(order: SlotOrder, executor: Executor | None = None) -> NodeResult | ParcelMissing:
    """On the node: keep the parcel if it came along, find it by its token, run the slot from it."""
    from distributed import get_worker

    node = get_worker().address
    if order.parcel is not None:
        SHELF.keep(node, order.parcel)
        ensure_shipped(order.parcel.shipped)  # written once, when the parcel arrives
    parcel = SHELF.take(node, order.token)
    if parcel is None:
        return ParcelMissing(node, order.token, order.serial)
    invocation = replace(parcel.template, argv=order.argv, artifacts_dir=order.artifacts_dir)
    recipe = replace(parcel.recipe, ctx=replace(parcel.recipe.ctx, artifacts_dir=order.artifacts_dir))
    return run_slot(invocation, recipe, executor, order.share_to)


def ready_node() -> int:
    """Runs on the node during its check: loads what a slot needs (the slot's modules, the
    collectors) so the node's first slot does not pay it. Why: 8 fresh workers importing jvmlab
    at once on a shared CPU started their first slots 0.3-0.5 s late (the bench's largest loss at
    8 workers); a long-lived ``dask worker`` pays this once, and now always in the node check.
    Loaded too: the slot's own entry (this module, with the client-side modules it imports), the
    default executor with its launch helper, and every collector module (a builder imports its
    module only when called: the flag-effect collector alone pulls in the GC log parser and its
    regexes). Left to the first slot, they cost each node 50-100 ms of CPU (60-245 ms of wall
    with 8 workers on 2 cores): the bench's mean "on node" time was 13.9 ms per slot at 8 workers
    and 0.5 ms from the second slot on, the largest part of its loss against linear.
    Returns how many collector kinds are registered (something to send back)."""
    import importlib
    import os
    import pkgutil

    import jvmlab.collect
    from jvmlab.collect.registry import entries
    from jvmlab.execute.windows import default_executor

    for entry in entries():
        entry.builder()
    for module in pkgutil.iter_modules(jvmlab.collect.__path__):
        importlib.import_module(f"jvmlab.collect.{module.name}")
    default_executor()
    if os.name != "nt":  # the launch helper, built on first use (keyed by its source's hash)
        from jvmlab.execute.launcher import launcher_path

        launcher_path()
    return len(entries())
