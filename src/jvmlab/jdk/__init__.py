"""Find, identify and select JDKs; check flags on them.

Typical use::

    jdks = discover()                      # cached: no JVM starts the second time
    jdk = select("temurin-25", jdks)       # or "17", "default", a path
    check = check_flags(jdk, ["-Xmx1g", "-XX:+PrintInlining"])
    check.flags          # with -XX:+UnlockDiagnosticVMOptions prepended
    check.final_values["MaxHeapSize"]      # "1073741824"
"""

from jvmlab.jdk.discover import discover
from jvmlab.jdk.flagcheck import FlagCheck
from jvmlab.jdk.flags import check_flags, check_many
from jvmlab.jdk.identify import identify
from jvmlab.jdk.select import select
from jvmlab.model.jdk import JdkInfo

__all__ = ["FlagCheck", "JdkInfo", "check_flags", "check_many", "discover", "identify", "select"]
