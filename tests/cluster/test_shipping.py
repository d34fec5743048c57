"""A built-in workload's compiled classes travel with the slot: a node without jvmlab's cache
gets the folder, whole, at the client's path; a node that has it keeps its own."""

from __future__ import annotations

from pathlib import Path

from jvmlab.cluster.task import ensure_shipped, pack_folder


def test_a_missing_cache_folder_is_written_whole_and_an_existing_one_is_kept(tmp_path: Path) -> None:
    source = tmp_path / "client" / "builtin-abc"
    (source / "pkg").mkdir(parents=True)
    (source / "JvmlabHello.class").write_bytes(b"\xca\xfe\xba\xbe hello")
    (source / "pkg" / "Other.class").write_bytes(b"\xca\xfe\xba\xbe other")
    packed = pack_folder(source)
    node_folder = tmp_path / "node" / "builtin-abc"
    node_folder.parent.mkdir()
    ensure_shipped({str(node_folder): packed})
    assert pack_folder(node_folder) == packed
    assert [p.name for p in node_folder.parent.iterdir()] == ["builtin-abc"]  # no staging left behind
    (node_folder / "JvmlabHello.class").write_bytes(b"node's own")
    ensure_shipped({str(node_folder): packed})
    assert (node_folder / "JvmlabHello.class").read_bytes() == b"node's own"
