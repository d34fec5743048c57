"""A slot's time split into queue, transfer, run, on-node, result and client parts, and each
node's busy share: the parts add up to the slot's life, and the idle gaps land in transfer."""

from __future__ import annotations

import pytest

from jvmlab.cluster.timing import node_breakdown, slot_timing


def test_the_parts_add_up_and_an_idle_gap_is_transfer() -> None:
    first = slot_timing("n1", submitted_at=100.0, collected_at=100.35, client_s=0.002, started_at=100.05,
                        finished_at=100.30, run_s=0.2, previous_end=None)
    assert first.queue_s == 0.0
    assert first.transfer_s == pytest.approx(0.05)
    assert first.on_node_s == pytest.approx(0.05)
    assert first.result_s == pytest.approx(0.05)
    # submitted while the first ran: waits behind it (queue), then starts 10 ms after it ended
    second = slot_timing("n1", submitted_at=100.10, collected_at=100.60, client_s=0.001, started_at=100.31,
                         finished_at=100.51, run_s=0.2, previous_end=100.30)
    assert second.queue_s == pytest.approx(0.20)
    assert second.transfer_s == pytest.approx(0.01)
    for t in (first, second):
        parts = t.queue_s + t.transfer_s + t.run_s + t.on_node_s + t.result_s
        assert parts == pytest.approx(t.collected_at - t.submitted_at)


def test_a_slot_without_node_times_has_no_parts_but_its_client_time() -> None:
    t = slot_timing("n1", 1.0, 2.0, 0.003, None, None, None, previous_end=None)
    assert (t.queue_s, t.transfer_s, t.on_node_s, t.result_s) == (None, None, None, None)
    assert t.client_s == 0.003


def test_node_breakdown_finds_the_node_that_idled() -> None:
    timings = []
    for node, gap in (("busy", 0.0), ("idle", 0.1)):  # the second node waits 100 ms before each slot
        end = None
        start = 0.0
        for _ in range(4):
            submitted = start if end is None else end - 0.1
            started = (end if end is not None else start) + gap
            t = slot_timing(node, submitted, started + 0.21, 0.002, started, started + 0.2, 0.2, end)
            timings.append(t)
            end = started + 0.2
    busy, idle = sorted(node_breakdown(timings), key=lambda n: n.node)
    assert (busy.node, idle.node) == ("busy", "idle")
    assert busy.slots == idle.slots == 4
    assert busy.busy_share == pytest.approx(1.0)
    assert idle.busy_share == pytest.approx(0.8 / 1.2)
    assert idle.transfer_s == pytest.approx(0.1) and busy.transfer_s == pytest.approx(0.0)
    assert idle.client_s == pytest.approx(0.002)
