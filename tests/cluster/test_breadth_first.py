"""Breadth-first top-up: every idle node gets a slot before any node gets a second one queued
(fakes for the client, the runner and the parcels: this is about who gets which slot)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from jvmlab.cluster.dispatch import Dispatcher, _Node
from jvmlab.plan.schedule import Slot


class FakeFuture:
    def __init__(self, key: int) -> None:
        self.key, self.status = key, "pending"

    def add_done_callback(self, fn) -> None:
        pass


@dataclass
class FakeClient:
    submitted: list[str] = field(default_factory=list)  # node of each submit, in order

    def submit(self, fn, *args, workers, **kwargs) -> FakeFuture:
        self.submitted.append(workers[0])
        return FakeFuture(len(self.submitted))


class FakeBudget:
    exhausted = False

    def cell_stopped(self, cell_index: int) -> bool:
        return False


class FakeRunner:
    options = SimpleNamespace(max_invocations=None)
    state = SimpleNamespace(budget=FakeBudget(), measured=0)
    observer = SimpleNamespace(starting=lambda cell, slot: None)

    def prepare_slot(self, slot: Slot) -> SimpleNamespace:
        return SimpleNamespace(slot=slot, cell=None)

    def out_of_budget(self) -> bool:
        return False

    def allows(self, slot: Slot, inflight: int = 0) -> str:
        return "run"


class FakeParcels:
    def order(self, node: str, work, share_to=None) -> tuple[str, Slot]:
        return (node, work.slot)


def block(number: int) -> list[Slot]:
    return [Slot(cell, number, position) for position, cell in enumerate((0, 1))]


def test_idle_nodes_are_fed_before_a_busy_node_gets_its_next_block() -> None:
    client = FakeClient()
    dispatcher = Dispatcher(client, FakeRunner(), parcels=FakeParcels())  # type: ignore[arg-type]
    busy = _Node("a")
    busy.inflight.append((SimpleNamespace(slot=Slot(0, 0, 0)), FakeFuture(0)))  # its last slot runs
    dispatcher.nodes = {"a": busy, "b": _Node("b"), "c": _Node("c")}
    dispatcher.pending.extend([block(1), block(2)])
    dispatcher._assign()
    assert client.submitted[:2] == ["b", "c"]  # the idle nodes first, one slot each
    assert sorted(client.submitted) == ["b", "b", "c", "c"]  # then topped up; no block left for a
    assert len(busy.inflight) == 1 and not busy.block


def test_with_every_node_idle_each_gets_a_block_before_any_gets_a_second_slot() -> None:
    client = FakeClient()
    dispatcher = Dispatcher(client, FakeRunner(), parcels=FakeParcels())  # type: ignore[arg-type]
    dispatcher.nodes = {name: _Node(name) for name in "abcd"}
    dispatcher.pending.extend(block(n) for n in range(3))
    dispatcher._assign()
    assert client.submitted[:3] == ["a", "b", "c"]
    assert client.submitted.count("d") == 0 and len(client.submitted) == 6
