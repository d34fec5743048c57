"""scripts/setup.sh picks a working Python quietly, past pyenv shims of absent versions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SHIM = '''#!/bin/sh
echo "pyenv: ${0##*/}: command not found" >&2
echo "" >&2
echo "The \\`${0##*/}' command exists in these Python versions:" >&2
echo "  3.13.1" >&2
exit 127
'''


def test_pick_python_is_quiet_with_broken_shims(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3.13", "python3.12"):
        (bin_dir / name).write_text(SHIM)
        (bin_dir / name).chmod(0o755)
    (bin_dir / "python3.11").symlink_to(sys.executable)
    proc = subprocess.run(["bash", "-c", f"source {REPO}/scripts/setup.sh; pick_python"],
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "python3.11"
    assert proc.stderr == ""
