"""Training-log warnings grouped by kind, and class-load logs read for the application's
own classes (no JVM needed: the lines are as JDK 17 and 25 write them)."""

from __future__ import annotations

from jvmlab.machine.archive_logs import loaded_from_archive, normalize, summarize_warnings


def test_784_skipping_lines_are_one_counted_group() -> None:
    lines = [f"[1.{k:03d}s][warning][cds] Skipping com/example/gen/Class{k}$Inner: Not linked" for k in range(784)]
    lines += ["[2.000s][warning][cds] Skipping org/foo/Old: Old class has been linked",
              "[2.001s][info][cds] Dumping shared data to file: /tmp/x.jsa",
              "OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot loader classes",
              "hello from the workload"]
    groups, total = summarize_warnings(["\n".join(lines)])
    assert total == 786
    assert (groups[0].text, groups[0].count) == ("Skipping ...: Not linked", 784)
    assert groups[0].example == lines[0]
    assert [g.count for g in groups] == [784, 1, 1]
    assert normalize("[0.1s][warning][cds] Preload Warning: Verification failed for a.B 12") == \
        "Preload Warning: Verification failed for ... N"


def test_only_the_applications_classes_count_as_evidence() -> None:
    log = "\n".join([
        "[0.010s][info][class,load] java.lang.Object source: shared objects file",
        "[0.011s][info][class,load] java.lang.String source: shared objects file",
        "[0.050s][info][class,load] com.example.Main source: file:/app/app.jar",
        "[0.051s][info][class,load] com.example.Util source: file:/app/app.jar",
    ])
    app = {"com.example.Main", "com.example.Util"}
    assert loaded_from_archive(log, app, "com.example.Main") == (2, 0, "")
    shared = log.replace("com.example.Main source: file:/app/app.jar", "com.example.Main source: shared objects file")
    assert loaded_from_archive(shared, app, "com.example.Main") == \
        (2, 1, "com.example.Main source: shared objects file")
