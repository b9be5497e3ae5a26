"""A cgroup v2 child per run (memory.max, memory.swap.max=0, pids.max) when this process sits
in a writable cgroup v2 with the memory and pids controllers."""

from __future__ import annotations

import functools
import os
import time
import uuid
from pathlib import Path

# Relative imports: the hostile-program test loads this package by path under a bare
# interpreter, where `eurekaclaw` is not importable.
from .limits import CGROUP_PREFIX, Limits


@functools.lru_cache(maxsize=1)
def cgroup_parent() -> Path | None:
    """This process's cgroup v2 directory when it can hold children with the memory and pids
    controllers and is writable; else None (RLIMIT_AS × process count is used instead)."""
    try:
        rel = next(
            line[3:].strip() for line in Path("/proc/self/cgroup").read_text().splitlines() if line.startswith("0::")
        )
        mount = None
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            if right.split()[:1] == ["cgroup2"] and left.split()[3] == "/":
                mount = Path(left.split()[4])
                break
        if mount is None:
            return None
        base = mount / rel.lstrip("/")
        enabled = (base / "cgroup.subtree_control").read_text().split()
        if not {"memory", "pids"} <= set(enabled):
            available = (base / "cgroup.controllers").read_text().split()
            if not {"memory", "pids"} <= set(available):
                return None
            (base / "cgroup.subtree_control").write_text("+memory +pids")
        if not os.access(base, os.W_OK):
            return None
        return base
    except (OSError, StopIteration, IndexError, ValueError):
        return None


def make_cgroup(limits: Limits) -> Path | None:
    base = cgroup_parent()
    if base is None:
        return None
    child = base / f"{CGROUP_PREFIX}{uuid.uuid4().hex[:12]}"
    try:
        child.mkdir()
        (child / "memory.max").write_text(str(limits.memory_mb * 2**20))
        if (child / "memory.swap.max").exists():
            (child / "memory.swap.max").write_text("0")
        (child / "pids.max").write_text(str(limits.max_procs + 4))  # + bwrap and its helpers
        return child
    except OSError:
        remove_cgroup(child)
        return None


def remove_cgroup(child: Path) -> bool:
    """Kill what is left in the cgroup and remove it; True when it saw an OOM kill."""
    oom = False
    try:
        for line in (child / "memory.events").read_text().splitlines():
            if line.startswith("oom_kill ") and int(line.split()[1]) > 0:
                oom = True
    except (OSError, ValueError):
        pass
    for _ in range(50):
        try:
            if (child / "cgroup.kill").exists():
                (child / "cgroup.kill").write_text("1")
            child.rmdir()
            break
        except FileNotFoundError:
            break
        except OSError:
            time.sleep(0.02)
    return oom
