"""Shared artifacts for a cluster run (``--artifacts-url file:///shared/path``).

Without a share, a node sends its artifacts back with the result, up to 32 MiB per invocation
(:data:`jvmlab.cluster.task.ARTIFACT_CAP_BYTES`); larger ones would stay on the node. With a
share (a folder every node and the client mount at the same path: NFS, CephFS, a cloud
filesystem), the node copies the invocation's whole artifacts folder there, whatever its size,
and the store records that final path. The copy goes to a staging name first and is renamed, so
a node lost mid-copy never leaves a half folder under the recorded name.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

from jvmlab.errors import UserError

SCHEMES = ("file",)


def parse_artifacts_url(url: str) -> Path:
    """``file:///shared/jvmlab`` -> ``/shared/jvmlab``, checked on the client: it must be an
    existing, writable folder (the share is mounted here as on the nodes)."""
    parsed = urlparse(url)
    if parsed.scheme not in SCHEMES:
        raise UserError(f"--artifacts-url {url!r}: give a shared folder as file:///PATH "
                        f"(supported schemes: {', '.join(SCHEMES)})")
    if parsed.netloc not in ("", "localhost"):
        raise UserError(f"--artifacts-url {url!r}: a file URL names a local path (file:///PATH), not a host; "
                        f"mount the share on every node and the client at the same path")
    path = Path(unquote(parsed.path))
    if not path.is_absolute() or not path.is_dir():
        raise UserError(f"--artifacts-url {url!r}: {path} is not an existing folder on this machine")
    if not os.access(path, os.W_OK):
        raise UserError(f"--artifacts-url {url!r}: {path} is not writable")
    return path


def share_target(share: Path, artifacts_root: Path, artifacts: Path) -> Path:
    """Where one invocation's folder goes on the share: the same relative path as under the
    run's artifacts folder (``exp-3/cell-1/b4``), so the layout is the one people know."""
    try:
        rel = artifacts.relative_to(artifacts_root)
    except ValueError:
        rel = Path(*artifacts.parts[-3:])
    return share / rel


def copy_to_share(folder: Path, target: Path) -> Path:
    """On the node: copy ``folder`` to ``target`` (staging name, then rename); return ``target``.

    Raises OSError when the share cannot take it; the caller falls back to sending the files back."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.{os.getpid()}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(folder, staging)
    if target.exists():  # a re-queued slot's earlier copy: the newest run wins
        shutil.rmtree(target)
    staging.rename(target)
    return target


def check_artifacts_url(artifacts_url: str | None, cluster: str | None) -> None:
    """--artifacts-url is where cluster nodes leave artifacts: checked before any work starts."""
    if artifacts_url is None:
        return
    if cluster is None:
        raise UserError("--artifacts-url is for --cluster runs (one machine writes to --artifacts)")
    parse_artifacts_url(artifacts_url)
