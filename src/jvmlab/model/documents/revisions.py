"""The ``revisions`` document: each revision of a ``[revisions]`` factor (or of a bisect step)
as it was checked out and built: its sha, subject and date, how long the build took, and why
it failed (None: built). Stored with the experiment; the build's output is kept as a file."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from jvmlab.model.documents.base import Document, JsonObject, mapping, opt_float, opt_str, strings


@dataclass(frozen=True, slots=True)
class RevisionRecord:
    """One revision: the level it is, the revision as given and what git resolved it to."""

    level: str
    rev: str
    sha: str
    subject: str
    date: str  # the commit's date, ISO 8601 with its offset
    build_s: float | None  # wall time of the build (None: nothing to build, or it did not start)
    build_error: str | None  # why the build failed (None: built, or nothing to build)
    build_log: str | None  # the build's output, kept as a file

    @property
    def built(self) -> bool:
        return self.build_error is None

    def to_json(self) -> JsonObject:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> RevisionRecord:
        d = mapping(data)
        return cls(str(d["level"]), str(d["rev"]), str(d["sha"]), str(d.get("subject") or ""),
                   str(d.get("date") or ""), opt_float(d.get("build_s")), opt_str(d.get("build_error")),
                   opt_str(d.get("build_log")))


@dataclass(frozen=True, slots=True)
class RevisionsDocument(Document):
    """The repository, the build command and every revision of the experiment."""

    KIND = "revisions"

    repo: str
    build: tuple[str, ...]
    revisions: tuple[RevisionRecord, ...]

    def body(self) -> JsonObject:
        return {"repo": self.repo, "build": list(self.build), "revisions": [r.to_json() for r in self.revisions]}

    @classmethod
    def decode(cls, data: Any, version: int) -> RevisionsDocument:
        d = mapping(data)
        return cls(str(d["repo"]), strings(d.get("build") or ()),
                   tuple(RevisionRecord.from_json(r) for r in d.get("revisions") or ()))
