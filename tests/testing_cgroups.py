"""Whether this test machine lets jvmlab create cgroups (root, controllers mounted): a skip mark."""

from __future__ import annotations

import pytest

from jvmlab.errors import UserError
from jvmlab.machine import cgroup


def can_make_groups() -> bool:
    try:
        cgroup.find_hierarchy(["cpu", "memory"])
    except UserError:
        return False
    return True


needs_cgroups = pytest.mark.skipif(not can_make_groups(), reason="cgroups cannot be created here (not root?)")
