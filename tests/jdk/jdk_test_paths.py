"""Where the test machine's JDKs live (tests skip when one is absent)."""

from pathlib import Path

JDK17_HOME = Path("/usr/lib/jvm/java-17-openjdk-amd64")
JDK17_SYMLINK = Path("/usr/lib/jvm/java-1.17.0-openjdk-amd64")
TEMURIN25_HOME = Path("/usr/lib/jvm/temurin-25-jdk-amd64")
