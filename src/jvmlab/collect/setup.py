"""Which collectors run for an experiment: the spec's [collect] table, overridden on the
command line (``--no-collect gc``, ``--collect jfr=profile`` ...). Both, and the list of
collectors, come from the registry (collect/registry.py); this module keeps the names
the runner and the cluster import."""

from __future__ import annotations

from jvmlab.collect.registry import CollectSettings, build_collectors

__all__ = ["CollectSettings", "build_collectors"]
