"""Cold page cache: a file on disk is really evicted (mincore says so); tmpfs cannot be."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jvmlab.machine import pagecache, tmpfs
from jvmlab.machine.environment import build_environment
from jvmlab.model import hazards

SIZE = 4 << 20


@pytest.fixture()
def disk_file() -> Path:
    folder = Path("/var/tmp")
    if tmpfs.is_tmpfs(folder):
        pytest.skip("/var/tmp is tmpfs here")
    path = folder / f"jvmlab-pagecache-{os.getpid()}-{os.urandom(3).hex()}.bin"
    path.write_bytes(os.urandom(SIZE))
    yield path
    path.unlink(missing_ok=True)


def test_evict_drops_a_disk_file_and_warm_brings_it_back(disk_file: Path) -> None:
    pagecache.warm(disk_file)
    assert pagecache.resident_share(disk_file) == pytest.approx(1.0)
    assert pagecache.evict(disk_file)
    assert pagecache.resident_share(disk_file) < 0.05
    assert pagecache.warm(disk_file) == SIZE
    assert pagecache.resident_share(disk_file) == pytest.approx(1.0)


def test_tmpfs_files_are_reported_not_evicted(shm_dir: Path, disk_file: Path) -> None:
    ram = shm_dir / "ram.bin"
    ram.write_bytes(os.urandom(SIZE))
    report = pagecache.evict_all([ram, disk_file], {ram: True, disk_file: False})
    assert report.tmpfs_files == (ram,)
    assert report.evicted_files == 1
    assert [r.path for r in report.checked] == [disk_file]
    assert report.worst is not None and report.worst.path == disk_file and report.worst.share < 0.05
    pagecache.evict(ram)  # asking anyway changes nothing: tmpfs pages are the file itself
    assert pagecache.resident_share(ram) == pytest.approx(1.0)


def test_resident_share_of_an_empty_or_missing_file_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    assert pagecache.resident_share(tmp_path / "empty") is None
    assert pagecache.resident_share(tmp_path / "missing") is None


def test_files_under_walks_folders_and_dedupes(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.class").write_bytes(b"x")
    (tmp_path / "a" / "link.class").symlink_to(tmp_path / "a" / "x.class")
    found = pagecache.files_under([tmp_path / "a", tmp_path / "a" / "x.class", tmp_path / "nope"])
    assert found == [(tmp_path / "a" / "x.class").resolve()]


@pytest.mark.jvm
def test_cold_cell_evicts_the_jdk_and_a_tmpfs_jdk_is_reported(make_plan, shm_dir: Path, tmp_path: Path) -> None:
    plan = make_plan(f'[environment]\njdk_location = ["disk", "tmpfs"]\ntmpfs_dir = "{shm_dir}"\n'
                     'page_cache = ["warm", "cold"]\n')
    env = build_environment(plan, tmp_path)
    try:
        ready = env.setup(plan)
        cells = {(pc.cell.level("jdk_location"), pc.cell.level("page_cache")): pc for pc in ready.cells}
        modules = cells[("disk", "cold")].jdk.home / "lib" / "modules"
        # warmed in setup (the kernel may already have dropped a few pages under memory pressure)
        assert (pagecache.resident_share(modules) or 0.0) > 0.95
        found = env.before(cells[("disk", "cold")])
        report = env.last_eviction
        assert report is not None and report.evicted_files > 100 and not report.tmpfs_files
        assert {r.path.name for r in report.checked} >= {"modules"}
        share = pagecache.resident_share(modules)
        # other JVMs running on this machine map parts of lib/modules and keep those cached
        assert share is not None and share < 0.5, found
        tmp_hazards = env.before(cells[("tmpfs", "cold")])
        assert any(h.kind == hazards.PAGE_CACHE and "cannot be evicted" in h.detail for h in tmp_hazards)
        assert env.last_eviction.tmpfs_files
    finally:
        env.teardown()
