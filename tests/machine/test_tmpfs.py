"""tmpfs JDK copies: detection, a real copy made, reused, run from and removed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.machine import tmpfs
from jvmlab.machine.environment import MachineEnvironment, build_environment

MOUNTS = """\
sysfs /sys sysfs rw 0 0
/dev/vda / ext4 rw,relatime 0 0
tmpfs /dev/shm tmpfs rw,size=100k 0 0
tmpfs /mnt/my\\040ram tmpfs rw 0 0
/dev/vdb /dev/shm/disk ext4 rw 0 0
"""


def test_mount_of_picks_the_longest_mount_point() -> None:
    table = tmpfs.mounts(MOUNTS)
    assert tmpfs.mount_of(Path("/dev/shm/x"), table).fs_type == "tmpfs"
    assert tmpfs.mount_of(Path("/dev/shm/disk/x"), table).fs_type == "ext4"
    assert tmpfs.mount_of(Path("/mnt/my ram/jdk"), table).fs_type == "tmpfs"
    assert tmpfs.mount_of(Path("/var/tmp"), table).mount_point == Path("/")


def test_a_disk_folder_is_refused_as_tmpfs_target() -> None:
    with pytest.raises(UserError, match="not tmpfs"):
        tmpfs.check_target(Path("/var/tmp"), 1)


def test_a_too_small_tmpfs_is_refused(shm_dir: Path) -> None:
    with pytest.raises(UserError, match="MiB free"):
        tmpfs.check_target(shm_dir, tmpfs.free_bytes(shm_dir) + 1)


def test_copy_resolves_links_and_skips_dangling_ones(tmp_path: Path, shm_dir: Path) -> None:
    home = tmp_path / "fakejdk"
    (home / "lib").mkdir(parents=True)
    (home / "release").write_text('JAVA_VERSION="17"\n')
    outside = tmp_path / "outside.txt"
    outside.write_text("linked content")
    (home / "lib" / "linked.txt").symlink_to(outside)
    (home / "lib" / "dangling").symlink_to(tmp_path / "missing")
    (home / "lib" / "loop").symlink_to(home / "lib")
    copy = tmpfs.ensure_copy(home, shm_dir)
    assert copy.created
    linked = copy.home / "lib" / "linked.txt"
    assert linked.read_text() == "linked content" and not linked.is_symlink()
    assert not (copy.home / "lib" / "dangling").exists()
    assert tmpfs.ensure_copy(home, shm_dir).created is False  # reused


@pytest.mark.jvm
def test_jdk_copied_to_tmpfs_runs_hello_then_is_removed(make_plan, shm_dir: Path, tmp_path: Path) -> None:
    plan = make_plan(f'[environment]\njdk_location = ["disk", "tmpfs"]\ntmpfs_dir = "{shm_dir}"\n')
    env = build_environment(plan, tmp_path)
    assert isinstance(env, MachineEnvironment)
    try:
        ready = env.setup(plan)
        by_level = {pc.cell.level("jdk_location"): pc for pc in ready.cells}
        copied = by_level["tmpfs"].jdk.home
        assert by_level["disk"].jdk.home == plan.cells[0].jdk.home
        assert copied.parent == shm_dir and tmpfs.is_tmpfs(copied)
        argv = by_level["tmpfs"].launch.argv(by_level["tmpfs"].jdk, ["-XshowSettings:properties"])
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
        assert "Hello, jvmlab" in out.stdout
        assert f"java.home = {copied}" in out.stderr  # really ran from the copy
        again = MachineEnvironment(tmp_path)
        again.setup(plan)
        assert again.copies[plan.cells[0].jdk.home].created is False  # second experiment reuses it
    finally:
        env.teardown()
    assert not copied.exists()


@pytest.mark.jvm
def test_kept_copy_survives_teardown(make_plan, shm_dir: Path, tmp_path: Path) -> None:
    plan = make_plan(f'[environment]\njdk_location = ["tmpfs"]\ntmpfs_dir = "{shm_dir}"\nkeep_tmpfs_copy = true\n')
    env = build_environment(plan, tmp_path)
    home = env.setup(plan).cells[0].jdk.home
    env.teardown()
    assert (home / "bin" / "java").is_file()
