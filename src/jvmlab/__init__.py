"""jvmlab: measure what a JVM flag, JDK, GC or machine setting does to a program."""

__version__ = "0.1.0"
