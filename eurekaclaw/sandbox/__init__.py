"""Run an untrusted program inside bubblewrap (`bwrap`, the sandbox Flatpak uses).

Standard library only (tests load this package by path under a bare interpreter). One entry
point, run_sandboxed(), used for model-written Python (tools/code_exec.py), coqc
(verify/formal.py) and latexmk (agents/writer/compile.py). Every run gets:

- new PID, network (only a down loopback: no TCP/UDP anywhere, no abstract Unix sockets),
  IPC, UTS and mount namespaces, and a user namespace of its own;
- a root that is an empty tmpfs, remounted read-only, holding only read-only binds of /usr (the
  C library, the interpreter or tool) and the extra paths the caller names (the interpreter's
  prefix, the Coq library, the TeX tree); no $HOME, no EUREKACLAW_DIR (from the environment,
  ./.env or the settings), no current directory, no host /tmp, no /run (so no Unix socket of the
  host). A private directory inside an exposed path is covered by an empty read-only tmpfs;
- size-capped tmpfs on /tmp (the working directory) and /dev/shm; a minimal /dev; a private /proc;
- the program as uid 65534 with no capabilities, no_new_privs, a clean environment;
- limits: RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_CORE=0, a process count (RLIMIT_NPROC counted inside
  the sandbox's own user namespace, so other processes of the same user do not count) and a
  total memory cap: a cgroup v2 child (memory.max, memory.swap.max=0, pids.max) when this
  process sits in a writable cgroup v2 with the memory controller, else RLIMIT_AS per process
  = total // max_procs, so max_procs processes together stay under the total;
- a wall clock that kills bwrap's process group; bwrap runs with --die-with-parent, so the
  sandbox's PID namespace (and every process in it) ends with bwrap or with this process;
- stdout and stderr read through pipes capped at max_output_bytes each; past the cap the pipe
  is closed (the program gets EPIPE) and the result says truncated.

How: as a normal user, bwrap creates the user namespace itself (--unshare-user
--disable-userns, uid 65534 inside). As root, bwrap runs privileged (so it can read an
interpreter under /root) with only CAP_SETUID/SETGID/SETPCAP kept; inside, setpriv switches to
uid/gid 65534 with no groups and an empty bounding set, `unshare --user` gives the program a user
namespace of its own (where RLIMIT_NPROC is counted) and the exec drops every capability.

There is no weaker fallback: when bwrap is missing or does not work here, status().available is
False with a one-line reason and callers turn the feature off.

Modules: limits (constants, Limits, result types), exposure (paths never shown), cgroup,
command (the bwrap command line), run (running and clean-up), probe (status()).
"""

from __future__ import annotations

# Relative imports: the hostile-program test loads this package by path under a bare
# interpreter, where `eurekaclaw` is not importable.
from .cgroup import cgroup_parent
from .command import build_command
from .exposure import private_paths
from .limits import (
    MEMORY_EXIT,
    SANDBOX_GID,
    SANDBOX_UID,
    Limits,
    SandboxRun,
    SandboxStatus,
    SandboxUnavailable,
)
from .probe import status
from .run import interpreter_paths, run_python_sandboxed, run_sandboxed, sandbox_workdir

__all__ = [
    "MEMORY_EXIT",
    "SANDBOX_GID",
    "SANDBOX_UID",
    "Limits",
    "SandboxRun",
    "SandboxStatus",
    "SandboxUnavailable",
    "build_command",
    "cgroup_parent",
    "interpreter_paths",
    "private_paths",
    "run_python_sandboxed",
    "run_sandboxed",
    "sandbox_workdir",
    "status",
]
