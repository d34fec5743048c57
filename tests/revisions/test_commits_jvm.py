"""`jvmlab bisect` and `jvmlab gate` end to end: real JVMs, javac builds in worktrees, on a git
repository the test makes (tests/revisions/gitrepo.py). The slow commit does four times the CPU
work of the others; the metric is user_s (the JVM's own CPU time), which a busy machine barely
moves, so only what holds on every run is asserted: the slow commit is named with a 95% CI above
1, at most ceil(log2 N) + 2 commits are measured, the broken commit is skipped, the unchanged
pair passes a +50% gate and the slow pair fails it, and the checkout is left as it was."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from revisions.gitrepo import Repo, checkout_state, git, make_repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, jdk17_home: Path) -> Repo:
    return make_repo(tmp_path_factory.mktemp("git"), jdk17_home)


@pytest.mark.jvm
@pytest.mark.slow
def test_bisect_names_the_slow_commit(repo: Repo, tmp_path: Path) -> None:
    before = checkout_state(repo.path)
    page = tmp_path / "bisect.html"
    proc = run_jvmlab("bisect", "bench.toml", "--good", repo.shas[0], "--bad", "HEAD", "--metric", "user_s",
                      "--max-blocks", "12", "--store", str(tmp_path / "lab.db"), "--json", "--html", str(page), "-q",
                      cwd=repo.path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    first = result["first_bad"]
    assert first["commit"] == repo.shas[repo.slow] and first["subject"] == "more rounds (slow)"
    assert first["ci95"][0] > 1.0 and first["ratio"] > 1.0
    assert result["measured_commits"] <= math.ceil(math.log2(len(repo.shas) - 1)) + 2
    skipped = [s for s in result["steps"] if s["verdict"] == "skipped"]
    assert [s["commit"] for s in skipped] == [repo.shas[repo.broken]]
    assert all(s["invocations"] > 0 for s in result["steps"] if s["verdict"] != "skipped")
    assert checkout_state(repo.path) == before
    assert git(repo.path, "worktree", "list", "--porcelain").count("worktree ") == 1
    html = page.read_text()
    assert "more rounds (slow)" in html and "<script" not in html
    history = run_jvmlab("history", result["series"], "--store", str(tmp_path / "lab.db"), "--json",
                         "--metric", "user_s", cwd=tmp_path, timeout=300)
    assert history.returncode == 0, history.stderr
    assert repo.shas[repo.slow][:12] in history.stdout


@pytest.mark.jvm
@pytest.mark.slow
def test_gate_passes_an_unchanged_pair_and_fails_the_slow_one(repo: Repo, tmp_path: Path) -> None:
    before = checkout_state(repo.path)
    common = ("--fail-if", "user_s > +50%", "--max-invocations", "12", "--store", str(tmp_path / "lab.db"), "-q")
    same = run_jvmlab("gate", "bench.toml", "--base", repo.shas[1], "--head", repo.shas[2], *common,
                      cwd=repo.path, timeout=300)
    assert same.returncode == 0, same.stdout + same.stderr[-3000:]
    assert "jvmlab gate: pass" in same.stdout
    md = tmp_path / "gate.md"
    slow = run_jvmlab("gate", "bench.toml", "--base", repo.shas[repo.slow - 1], "--head", repo.shas[repo.slow],
                      *common, "--summary-md", str(md), cwd=repo.path, timeout=300)
    assert slow.returncode == 1, slow.stdout + slow.stderr[-3000:]
    assert "FAIL" in slow.stdout and "gate failed" in md.read_text()
    assert repo.shas[repo.slow][:12] in md.read_text()
    broken = run_jvmlab("gate", "bench.toml", "--base", repo.shas[repo.broken - 1], "--head",
                        repo.shas[repo.broken], *common, cwd=repo.path, timeout=300)
    assert broken.returncode == 1 and "does not build" in broken.stderr
    assert checkout_state(repo.path) == before
