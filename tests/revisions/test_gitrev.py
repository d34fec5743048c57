"""Worktrees and builds (machine/gitrev.py) on a git repository the test makes: each build's
failure is its reason, every wait is bounded, and the worktrees go on any exit."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.machine.gitrev import BuildCommand, resolve, worktrees
from revisions.gitrepo import checkout_state, git


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "r"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "a.txt").write_text("a\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "first <b>bold</b>")
    return path


@pytest.mark.parametrize(("argv", "says"), [
    (["sh", "-c", "echo 'Main.java:3: error: x expected'; echo '1 error'; exit 1"],
     "the build exited 1: Main.java:3: error: x expected"),
    (["sleep", "5"], "did not finish within 0.3 s"),
    (["no-such-build-tool-here"], "cannot start"),
])
def test_a_failed_build_is_its_reason_and_its_output_is_kept(repo: Path, tmp_path: Path, argv: list[str],
                                                             says: str) -> None:
    with worktrees(repo, tmp_path / "art" / "revisions", BuildCommand(tuple(argv), 0.3), repo) as trees:
        tree = trees.checkout("head", "HEAD")
        assert tree.record.build_error is not None and says in tree.record.build_error
        assert not tree.usable and tree.worktree is not None and (tree.worktree / "a.txt").exists()
    assert not tree.worktree.exists()
    if "cannot start" not in says:
        assert tree.record.build_log is not None and Path(tree.record.build_log).exists()


def test_worktrees_are_removed_on_an_error_and_the_checkout_is_untouched(repo: Path, tmp_path: Path) -> None:
    (repo / "a.txt").write_text("edited, not committed\n")  # the user's work in progress
    before = checkout_state(repo)
    with pytest.raises(RuntimeError), worktrees(repo, tmp_path / "revisions", BuildCommand(("true",)), repo) as trees:
        tree = trees.checkout("base", "main")
        assert tree.usable and tree.record.subject == "first <b>bold</b>"
        assert (tree.worktree / "a.txt").read_text() == "a\n"  # the commit, not the edit
        raise RuntimeError("boom")
    assert checkout_state(repo) == before
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_an_unknown_revision_is_one_line(repo: Path) -> None:
    with pytest.raises(UserError, match="not a commit"):
        resolve(repo, "v9.9")
    assert resolve(repo, "main").sha == git(repo, "rev-parse", "HEAD")
