"""jvmlab's own JFR reader against the JDK's ``jfr print --json`` on real recordings (17, 25)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from jvmlab import metrics
from jvmlab.collect.jfr import RECORDING, JfrCollector
from jvmlab.collect.jfr_binary import JfrFormatError, chunk_spans, forget_metadata
from jvmlab.collect.jfr_parse import JfrDigest, digest_events, jfr_tool
from jvmlab.collect.jfr_read import read_chunk, read_recording, read_with_tool
from jvmlab.model import hazards

pytestmark = pytest.mark.jvm

# JDK 25 with the JDK's own default (20-ms samplers): the stacks to compare stay dense in a 2.5-s run
CASES = [("jdk17", ["-Xmx48m", "-XX:+UseG1GC"], "profile"), ("jdk25", ["-Xmx48m", "-XX:+UseZGC"], "jdk-default")]


def _assert_same_digest(ours: JfrDigest, ref: JfrDigest) -> None:
    """Counts equal exactly; times and shares within rounding (JSON prints durations in ns,
    floats as decimal text); stacks and reasons for missing metrics equal."""
    assert set(ours.metrics) == set(ref.metrics)
    for name, value in ref.metrics.items():
        if metrics.get(name).unit == "count" or name == "jfr.alloc_total_bytes":
            assert ours.metrics[name] == value, name
        else:
            assert ours.metrics[name] == pytest.approx(value, rel=1e-6, abs=1e-6), name
    assert ours.missing == ref.missing
    assert set(ours.gc_phases_ms) == set(ref.gc_phases_ms)
    for phase, ms in ref.gc_phases_ms.items():
        assert ours.gc_phases_ms[phase] == pytest.approx(ms, rel=1e-6, abs=1e-6), phase
    assert ours.cpu_stacks == ref.cpu_stacks
    assert ours.alloc_stacks == ref.alloc_stacks


@pytest.mark.parametrize("jdk_name,flags,settings", CASES)
def test_reader_gives_what_jfr_print_gives(request, jdk_name, flags, settings, classes, run_java,
                                           tmp_path: Path) -> None:
    jdk = request.getfixturevalue(jdk_name)
    run = run_java([JfrCollector(settings)], jdk, tmp_path, flags, ["JfrMix", "2.5"], classpath=classes)
    assert run.result.status.value == "ok"
    doc = run.collected.documents["jfr"]
    assert doc["reader"] == "jvmlab" and doc["fallbacks"] == [] and doc["chunks"] >= 1
    assert not [h for h in run.collected.hazards if h.kind == hazards.JFR_READER_FALLBACK]
    recording = run.ctx.artifacts_dir / RECORDING
    ours = read_recording(recording, None)
    ref = read_with_tool(jfr_tool(jdk.home), recording)
    assert {k: len(v) for k, v in ours.by_type.items()} == {k: len(v) for k, v in ref.items()}
    ours_digest, ref_digest = digest_events(ours.by_type), digest_events(ref)
    _assert_same_digest(ours_digest, ref_digest)
    assert run.collected.metrics == ours_digest.metrics  # the collector used our reader
    # something to compare: the run collected, sampled and allocated
    assert ref_digest.metrics["jfr.gc_count"] >= 1 and ref_digest.metrics["jfr.exec_samples"] >= 5
    assert ref_digest.metrics["jfr.alloc_total_bytes"] > 0 and ref_digest.cpu_stacks
    assert any(frame.endswith("JfrMix.compute") for stack in ours_digest.cpu_stacks for frame in stack.split(";"))


@pytest.fixture(scope="module")
def two_chunks(jdk17, jdk25, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file of two chunks (a JDK 17 and a JDK 25 recording, concatenated as `jfr assemble`
    does): short runs of the JDK's own code, no test program needed."""
    import subprocess

    folder = tmp_path_factory.mktemp("two-chunks")
    parts = []
    for jdk in (jdk17, jdk25):
        path = folder / f"r{jdk.feature}.jfr"
        subprocess.run([str(jdk.java), f"-XX:StartFlightRecording:filename={path},settings=profile",
                        "-XX:+UseSerialGC", "-Xshare:auto", "-version"], check=True, capture_output=True,
                       timeout=120)
        parts.append(path.read_bytes())
    joined = folder / "joined.jfr"
    joined.write_bytes(b"".join(parts))
    return joined


def test_every_chunk_of_a_file_is_read(two_chunks: Path, jdk17, jdk25) -> None:
    forget_metadata()
    ours = read_recording(two_chunks, None)
    assert ours.chunks == 2 and not ours.fallbacks
    assert read_recording(two_chunks, None).by_type == ours.by_type  # again, with the metadata known
    # the JDK's tool cannot read chunks of two JDKs in one file (it keeps type ids across
    # chunks), so the reference is each JDK's tool on its own recording
    ref: dict[str, list] = {}
    for jdk in (jdk17, jdk25):
        for name, values in read_with_tool(jfr_tool(jdk.home), two_chunks.parent / f"r{jdk.feature}.jfr").items():
            ref.setdefault(name, []).extend(values)
    assert {k: len(v) for k, v in ours.by_type.items()} == {k: len(v) for k, v in ref.items()}
    versions = [v["jvmVersion"] for v in ours.by_type["jdk.JVMInformation"]]
    assert len(versions) == 2 and "17." in versions[0] and "25" in versions[1]
    _assert_same_digest(digest_events(ours.by_type), digest_events(ref))


def test_a_chunk_our_reader_refuses_is_read_by_jfr_print(two_chunks: Path, jdk25) -> None:
    def refuse_second(data: bytes, start: int, end: int):  # type: ignore[no-untyped-def]
        if start > 0:
            raise JfrFormatError("format version 3.0 (made up for the test)")
        return read_chunk(data, start, end)

    mixed = read_recording(two_chunks, jfr_tool(jdk25.home), chunk_reader=refuse_second)
    assert mixed.chunks == 2 and len(mixed.fallbacks) == 1 and "version 3.0" in mixed.fallbacks[0]
    plain = read_recording(two_chunks, None)
    assert {k: len(v) for k, v in mixed.by_type.items()} == {k: len(v) for k, v in plain.by_type.items()}
    _assert_same_digest(digest_events(mixed.by_type), digest_events(plain.by_type))
    with pytest.raises(ValueError, match="no jfr tool to fall back on"):
        read_recording(two_chunks, None, chunk_reader=refuse_second)
    assert not list(two_chunks.parent.glob("jfr-chunk-*"))  # the chunk's temporary file is gone


def test_damaged_recordings_raise_a_format_error_never_another(two_chunks: Path) -> None:
    data = two_chunks.read_bytes()
    first_end = int.from_bytes(data[8:16], "big")
    rng = random.Random(19)
    refused = 0
    for _ in range(40):
        damaged = bytearray(data[:first_end])
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(68, first_end)] = rng.randrange(256)
        try:
            read_chunk(bytes(damaged), 0, first_end)
        except JfrFormatError:
            refused += 1
    assert refused > 0
    with pytest.raises(JfrFormatError, match="claims"):
        list(chunk_spans(data[:first_end // 2]))  # a file cut in its first chunk
