"""Which workers may take part: each one's identity is taken on the node and its JDK builds are
compared with the client's; a node with another build is refused (stored, with the reason)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from jvmlab.cluster.node import NodeCheck, jdk_build, node_identity, refusal
from jvmlab.cluster.parcel import ready_node
from jvmlab.errors import UserError

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
CHECK_DEADLINE_S = 60.0  # the whole check of the nodes that joined, not each node: 100 dead nodes cost 60 s


def host_of(address: str) -> str:
    """``tcp://10.0.0.5:40123`` -> ``10.0.0.5``."""
    rest = address.split("://", 1)[-1]
    return rest.rsplit(":", 1)[0]


def check_store(store_url: str, worker_addresses: list[str]) -> None:
    """SQLite is a file on the client: remote workers' results must go to a shared server store."""
    remote = [a for a in worker_addresses if host_of(a) not in LOCAL_HOSTS]
    if store_url.startswith("sqlite") and remote:
        raise UserError(f"the store {store_url} is an SQLite file but {len(remote)} worker(s) are remote "
                        f"(e.g. {remote[0]}); use a shared store: --store postgresql+psycopg://USER@HOST/DB")


def check_nodes(client: Any, addresses: list[str], jdk_homes: list[str],
                deadline_s: float = CHECK_DEADLINE_S) -> list[NodeCheck]:
    """Take each node's identity on the node (one small task pinned to it) and judge it; then
    ready it for slots (:func:`jvmlab.cluster.parcel.ready_node`, pinned behind the identity).

    One deadline for all: every task is submitted at once, and a node that has not answered
    ``deadline_s`` after the start is refused (waiting per node would cost 60 s per dead node)."""
    want = {home: jdk_build(Path(home)) for home in jdk_homes}
    futures = {a: client.submit(node_identity, jdk_homes, workers=[a], allow_other_workers=False,
                                pure=False, key=f"jvmlab-identity-{a}") for a in addresses}
    ready = {a: client.submit(ready_node, workers=[a], allow_other_workers=False, pure=False,
                              key=f"jvmlab-ready-{a}") for a in addresses}
    deadline = time.monotonic() + deadline_s
    checks = []
    for address, future in futures.items():
        try:
            identity = future.result(timeout=max(0.01, deadline - time.monotonic()))
            ready[address].result(timeout=max(0.01, deadline - time.monotonic()))
        except Exception as err:  # noqa: BLE001 - a node that cannot answer is refused, with why
            what = "load jvmlab's slot code" if future.status == "finished" else "take its identity"
            why = f"no answer within the {deadline_s:g} s node check" if isinstance(err, TimeoutError) else err
            checks.append(NodeCheck(address, {}, f"could not {what}: {why}"))
            continue
        checks.append(NodeCheck(address, identity, refusal(want, identity)))
    return checks
