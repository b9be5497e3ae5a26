"""Whether a sandbox can be built here: run `true` in one and say why not in one line."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

# Relative imports: the hostile-program test loads this package by path under a bare
# interpreter, where `eurekaclaw` is not importable.
from .cgroup import cgroup_parent
from .limits import SAFE_PATH, Limits, SandboxStatus, SandboxUnavailable
from .run import run_sandboxed


@functools.lru_cache(maxsize=1)
def status() -> SandboxStatus:
    """Whether a sandbox can be built here, found by running `true` in one (cached)."""
    import platform

    if platform.system() != "Linux":
        return SandboxStatus(False, "the sandbox needs Linux (bubblewrap)")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return SandboxStatus(False, "bubblewrap (bwrap) is not installed; install the `bubblewrap` package")
    for tool in ("prlimit", "setpriv", "unshare") if os.geteuid() == 0 else ("prlimit",):
        if shutil.which(tool, path=SAFE_PATH) is None:
            return SandboxStatus(False, f"{tool} (util-linux) is not installed")
    try:
        version = (
            subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout.strip() or None
        )
    except (OSError, subprocess.TimeoutExpired):
        version = None
    mode = "root" if os.geteuid() == 0 else "userns"
    try:
        probe = run_sandboxed(["true"], limits=Limits(timeout_s=20, cpu_s=10, memory_mb=256, max_procs=4))
    except (OSError, SandboxUnavailable, subprocess.SubprocessError) as exc:
        return SandboxStatus(False, f"bubblewrap cannot start a sandbox here: {exc}", version, mode)
    if probe.returncode != 0:
        detail = probe.stderr.decode("utf-8", "replace").strip().splitlines()
        why = detail[-1] if detail else f"exit code {probe.returncode}"
        return SandboxStatus(
            False,
            f"bubblewrap cannot create its namespaces here ({why}); unprivileged user namespaces may be disabled",
            version,
            mode,
        )
    cap = "cgroup v2" if cgroup_parent() is not None else "RLIMIT_AS × process count (no writable cgroup v2)"
    return SandboxStatus(
        True,
        f"{version or 'bwrap'} works ({'root: setpriv to uid 65534' if mode == 'root' else 'user namespaces'}; "
        f"memory cap: {cap})",
        version,
        mode,
        "cgroup" if cgroup_parent() else "rlimit",
    )
