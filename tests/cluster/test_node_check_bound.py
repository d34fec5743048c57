"""The node check has one deadline for all the nodes that joined, not one per node: ten nodes
that never answer cost the deadline once (a fake client whose tasks never finish)."""

from __future__ import annotations

import time

from jvmlab.cluster.nodes import check_nodes


class SilentFuture:
    """A task on a node that never answers: ``result`` waits out its timeout."""

    status = "pending"

    def result(self, timeout: float | None = None):
        assert timeout is not None, "the node check must never wait without a bound"
        time.sleep(timeout)
        raise TimeoutError


class SilentClient:
    def __init__(self) -> None:
        self.submitted = 0

    def submit(self, *args, **kwargs) -> SilentFuture:
        self.submitted += 1
        return SilentFuture()


def test_ten_silent_nodes_cost_one_deadline(jdk17_home) -> None:
    client = SilentClient()
    nodes = [f"tcp://10.0.0.{i}:4000" for i in range(10)]
    started = time.monotonic()
    checks = check_nodes(client, nodes, [str(jdk17_home)], deadline_s=0.5)
    elapsed = time.monotonic() - started
    assert client.submitted == 20  # identity and readying, all submitted before any wait
    assert elapsed < 3.0  # per node it would be 10 x 0.5 s at the least (5 s)
    assert [c.name for c in checks] == nodes
    assert all("no answer within the 0.5 s node check" in (c.refused or "") for c in checks)
