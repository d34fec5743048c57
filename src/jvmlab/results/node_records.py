"""The node records of a cluster run, as loaded with the experiment (:mod:`jvmlab.results.nodes`
loads and analyses them; kept apart so the loaded-results record can hold them without a cycle)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class NodeRecords:
    """Which node ran each invocation, each node's fingerprint, and the nodes refused (why)."""

    node_of: Mapping[int, str]  # invocation id -> node name
    fingerprints: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    refused: Mapping[str, str] = field(default_factory=dict)  # node -> reason
