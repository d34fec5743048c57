"""Each document kind as jvmlab stored it before documents had versions (schema v4): the
layouts the migration and the readers must still take."""

from __future__ import annotations

from typing import Any

CONFIG = {"values": {"gc": "serial"}, "jvm": "j17", "flags": ["-XX:+UseSerialGC"]}

OLD: dict[str, Any] = {
    "tune": {
        "objectives": [{"metric": "wall_s", "minimize": True}], "guardrails": ["max_rss_bytes <= 1.1x"],
        "trials": [{"number": 0, "config": CONFIG, "state": "promoted", "blocks": 4, "ratio": 0.9,
                    "ci": [0.85, 0.95], "estimate": [1.0], "reason": None, "best_after": 1.0,
                    "best_ci": [0.95, 1.05], "block_range": [0, 3], "origin": "search"}],
        "winner": {**CONFIG, "run_flags": ["-XX:+UseSerialGC", "-Xshare:auto"]},
        "baseline": {"values": {}, "jvm": "j17", "flags": []}, "pareto": [CONFIG],
        "confirmations": [{"label": "winner", "config": CONFIG, "blocks": 12,
                           "against": {"baseline": [0.9, [0.8, 0.95]]},
                           "verdicts": {"baseline": "10% faster"}, "side_effects": {"max_rss_bytes": 1.02}}],
        "importances": {"gc": 1.0}, "invocations": 40, "hazards": ["busy"], "stopped_because": "budget",
    },
    "tune-cluster": {"width": 3, "nodes": ["a", "b", "c"]},
    "minheap": {"request": {"lower_bytes": 1 << 20, "upper_bytes": 1 << 30, "step_bytes": 1 << 20, "repeats": 5,
                            "max_probes": 80, "fail_pattern": None, "timeout_s": None},
                "cells": {"0": {"name": "j17 gc=serial",
                                "probes": [{"heap_bytes": 64 << 20, "verdict": "oom", "reason": "OutOfMemoryError",
                                            "wall_s": 0.5},
                                           {"heap_bytes": 96 << 20, "verdict": "pass", "reason": None, "wall_s": 0.7}],
                                "result": {"status": "found", "lower_bytes": 64 << 20, "upper_bytes": 96 << 20,
                                           "confidence": 0.94, "flaky_sizes": [], "invocations": 2, "note": "",
                                           "probes": None}},
                          "1": {"name": "j17 gc=g1", "probes": [], "result": None}}},
    "heap_sweep": {"levels": [{"name": "x1", "heap_bytes": 96 << 20, "multiple": 1.0},
                              {"name": "x2", "heap_bytes": 192 << 20, "multiple": 2.0}],
                   "reference_bytes": 96 << 20, "minheap_experiment": 1},
    "gc_advise": {"version": 1, "source": "gc.log", "findings": [{"id": "explicit-gc", "count": 3}],
                  "levels": [{"name": "current", "flags": [], "findings": [], "reasons": [], "group": None},
                             {"name": "noexplicit", "flags": ["-XX:+DisableExplicitGC"], "findings": ["explicit-gc"],
                              "reasons": ["System.gc() calls"], "group": None}],
                  "advice": {"experiment": 4, "metric": "wall_s", "fixes": [],
                             "winner": {"name": "noexplicit", "flags": ["-XX:+DisableExplicitGC"],
                                        "findings": ["explicit-gc"], "reasons": ["System.gc() calls"], "group": None}}},
    "cell_identity": {"0": {"name": "j17", "flags": ["-Xmx1g"], "jdk": {"version": "17"},
                            "workload": {"kind": "builtin"}, "template": {"timeout_s": 45.0}},
                      "1": {"name": "j17 old", "flags": []}},
    "spec_history": [{"spec_hash": "abc", "spec_text": "[workload]\n", "replaced_at": 1700000000.5,
                      "cells_added": ["j17 gc=g1"]}],
    "import": {"hyperfine": {"jdk17-version": {"user": 0.1}}},
    "archives": {"schema": "jvmlab.archives/1", "archives": [{
        "cell": "j17 cds", "kind": "cds-archive", "path": "/a/app.jsa", "size_bytes": 1 << 20, "train_s": 1.5,
        "check_s": 0.5, "steps": ["train"], "logs": ["/a/train.log"], "warning_lines": 3,
        "warnings": [{"text": "Skipping ...", "count": 3, "example": "Skipping Foo"}], "app_classes_loaded": 10,
        "app_classes_from_archive": 9, "evidence": "Foo source: shared objects file"}]},
    "jmh": {"jmh.Bench.run": {"benchmark": "org.Bench.run", "mode": "thrpt", "params": {"n": "10"},
                              "secondary": {"gc.alloc.rate": {"unit": "MB/sec", "fork_scores": [1.5]}},
                              "unit": "ops/s", "score": 100.0, "score_error": None, "fork_scores": [100.0],
                              "iterations": 5, "lower_is_better": False}},
    "load_histogram": {"unit": "us", "sub": 32, "counts": {"70": 4, "3": 1}},
    "minheap_probe": {"heap_bytes": 64 << 20, "verdict": "oom", "reason": "OutOfMemoryError", "wall_s": 0.5},
}
