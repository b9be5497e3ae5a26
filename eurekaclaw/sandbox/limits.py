"""The sandbox's fixed identities and paths, its resource limits and the result types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SANDBOX_UID = 65534
SANDBOX_GID = 65534
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
CGROUP_PREFIX = "eurekaclaw-sandbox-"
# Host files a program may need that hold nothing private.
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")
MEMORY_EXIT = 86
USER_CODE = "/eureka/user_code.py"
PYTHON_RUNNER = f"""import os, runpy, sys
sys.path[:0] = ["/tmp"]
try:
    runpy.run_path({USER_CODE!r}, run_name="__main__")
except MemoryError:
    sys.stderr.write("[sandbox] MemoryError: memory limit reached\\n")
    sys.stderr.flush()
    os._exit({MEMORY_EXIT})
"""


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot build a sandbox here; the message is one line."""


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 60.0  # wall clock for the whole run
    cpu_s: int = 60  # RLIMIT_CPU, per process
    memory_mb: int = 1024  # total for all processes of the run
    max_procs: int = 4  # processes (and threads) in the sandbox
    file_mb: int = 64  # RLIMIT_FSIZE
    tmp_mb: int = 64  # size of the /tmp tmpfs (and of /dev/shm, 16 MiB at most)
    max_output_bytes: int = 1_000_000  # per stream

    def per_process_mb(self, cgroup: bool) -> int:
        return self.memory_mb if cgroup else max(16, self.memory_mb // max(1, self.max_procs))


@dataclass
class SandboxRun:
    returncode: int | None
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    cpu_seconds: float = 0.0
    seconds: float = 0.0
    memory_cap: str = "rlimit"  # "cgroup" | "rlimit"
    per_process_mb: int = 0
    oom_killed: bool = False
    limits: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SandboxStatus:
    available: bool
    reason: str  # one line: what works, or why not
    version: str | None = None
    mode: str = ""  # "userns" (normal user) | "root" (privileged bwrap + setpriv)
    memory_cap: str = "rlimit"

    def as_dict(self) -> dict[str, Any]:
        return {
            "available": self.available,
            "reason": self.reason,
            "version": self.version,
            "mode": self.mode,
            "memory_cap": self.memory_cap,
        }
