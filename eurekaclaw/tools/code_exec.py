"""Run model-written Python in a sandbox and return its JSON result.

Every run: a fresh temporary directory as the working directory; an environment reduced to an
allow-list (no API keys, tokens or proxies); resource limits set in the child before exec
(RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NPROC); a wall-clock timeout that kills the whole
process group; stdout/stderr captured to files and read back capped; the result parsed as JSON
from stdout.

Isolation, strongest available (detect_isolation(), probed once per process):
- "namespaces" (root, util-linux unshare + setpriv + mount): new network, PID and mount
  namespaces. Only a down loopback interface exists, so no connection leaves the sandbox. /proc
  shows only the sandbox's processes. /tmp is the sandbox directory and /var/tmp, /dev/shm,
  /run/lock are fresh tmpfs, so files written there vanish with the run. The user's home, the
  EUREKACLAW_DIR and the current directory are covered by empty tmpfs; the interpreter's prefix
  is re-mounted read-only at its usual path. The program then runs as `nobody` with no
  capabilities and no_new_privs, so it cannot write root-owned files elsewhere, and
  RLIMIT_NPROC (not enforced for root) applies. When the wall clock runs out, killing the
  `unshare` process ends the PID namespace and every process in it.
- "userns" (not root, unprivileged user namespaces allowed): the same namespaces inside a user
  namespace. Network, PID and the private /tmp are as above, and home/EUREKACLAW_DIR/cwd are
  hidden, but the program keeps the user's own file permissions elsewhere on the filesystem.
- "none": only the environment scrub, rlimits and the timeout. The network is reachable and the
  filesystem is not contained; ExecResult.warnings says so. Callers that run untrusted code
  should refuse this mode (the Experiment stage does).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import pwd
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from eurekaclaw.tools.base import BaseTool

Isolation = Literal["namespaces", "userns", "none"]
MEMORY_EXIT = 86
RUNNER = f"""import os, runpy, sys
try:
    runpy.run_path("user_code.py", run_name="__main__")
except MemoryError:
    sys.stderr.write("[sandbox] MemoryError: memory limit reached\\n")
    sys.stderr.flush()
    os._exit({MEMORY_EXIT})
"""
SAFE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
}
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PROXY", re.IGNORECASE)
SCRATCH_DIRS = ("/var/tmp", "/dev/shm", "/run/lock")
SYSTEM_DIRS = {"/", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt", "/var", "/tmp", "/dev", "/proc", "/sys", "/run"}


@dataclass
class ExecResult:
    ok: bool
    returncode: int | None
    stdout: str
    stderr: str
    result: Any = None
    json_error: str | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    limit: str | None = None  # timeout | cpu | memory | file_size, when a limit ended the run
    seconds: float = 0.0
    isolation: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _nobody() -> tuple[int, int]:
    try:
        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return 65534, 65534


def _count_processes(uid: int) -> int:
    count = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            for line in status.read_text().splitlines():
                if line.startswith("Uid:"):
                    count += int(line.split()[1]) == uid
                    break
        except (OSError, ValueError, IndexError):
            continue
    return count


def _world_traversable(path: Path) -> bool:
    try:
        return bool(path.stat().st_mode & 0o001)
    except OSError:
        return False


def _hidden_dirs(expose: list[Path], workdir: Path, root_mode: bool) -> list[Path]:
    """Directories to cover with an empty tmpfs: private places, and (root mode) ancestors of the
    interpreter that `nobody` could not traverse. Never a system directory or one holding the
    sandbox directory."""
    candidates = {Path.home(), Path(os.environ.get("EUREKACLAW_DIR", "~/.eurekaclaw")).expanduser(), Path.cwd()}
    if root_mode:
        for p in expose:
            for parent in [*reversed(p.parents), p]:
                if not _world_traversable(parent):
                    candidates.add(parent)
                    break
    chosen: list[Path] = []
    for c in sorted({Path(os.path.realpath(c)) for c in candidates}, key=lambda p: len(p.parts)):
        if str(c) in SYSTEM_DIRS or not c.is_dir() or c == workdir or c in workdir.parents:
            continue
        if any(h == c or h in c.parents for h in chosen):
            continue
        chosen.append(c)
    return chosen


def _launcher(workdir: Path, python: Path, mode: Isolation) -> list[str]:
    """The command line that builds the namespaces' filesystem view and execs the runner."""
    prefixes = sorted({Path(os.path.realpath(p)) for p in (sys.base_prefix, sys.prefix, python.parent.parent)},
                      key=lambda p: len(p.parts))
    expose = [p for i, p in enumerate(prefixes) if not any(q in p.parents for q in prefixes[:i])]
    hidden = _hidden_dirs(expose, workdir, mode == "namespaces")
    q = shlex.quote
    lines = ["set -e"]
    staged = []
    for i, path in enumerate(expose):
        if any(h == path or h in path.parents for h in hidden):
            stage = workdir / ".stage" / str(i)
            stage.mkdir(parents=True)
            lines.append(f"mount --bind -o ro {q(str(path))} {q(str(stage))}")
            staged.append((stage, path))
    for h in hidden:
        lines.append(f"mount -t tmpfs -o size=1m,mode=0755 tmpfs {q(str(h))}")
    for stage, path in staged:
        lines.append(f"mkdir -p {q(str(path))} && mount --move {q(str(stage))} {q(str(path))}")
    lines.append(f"mount --bind {q(str(workdir))} /tmp")
    for d in SCRATCH_DIRS:
        lines.append(f"if [ -d {d} ]; then mount -t tmpfs -o size=16m,mode=1777 tmpfs {d}; fi")
    lines.append("cd /tmp")
    run = [str(python), "-I", "-B", "main.py"]
    if mode == "namespaces":
        uid, gid = _nobody()
        run = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--no-new-privs",
               "--inh-caps=-all", "--bounding-set=-all", "--", *run]
    lines.append("exec " + " ".join(q(a) for a in run))
    ns = ["unshare", "--mount", "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
    if mode == "userns":
        ns[1:1] = ["--user", "--map-root-user"]
    return [*ns, "--", "/bin/sh", "-c", "\n".join(lines)]


def _limits_fn(cpu_s: int, memory_mb: int, file_mb: int, nproc: int | None) -> Callable[[], None]:
    def apply() -> None:  # runs in the child between fork and exec: only setrlimit calls
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        mem = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        size = file_mb * 2**20
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

    return apply


def _read_capped(fh: Any, cap: int) -> tuple[str, bool]:
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(0)
    data = fh.read(cap)
    return data.decode("utf-8", errors="replace"), size > cap


def _parse_json(stdout: str) -> tuple[Any, str | None]:
    text = stdout.strip()
    if not text:
        return None, "no output on stdout"
    for candidate in (text, text.splitlines()[-1]):
        try:
            return json.loads(candidate), None
        except json.JSONDecodeError:
            continue
    return None, "stdout is not JSON (print one JSON object, e.g. as the last line)"


def _wait(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait without reaping until the process exits or the deadline passes; True on timeout.
    Not reaping keeps the process-group id reserved, so a later killpg cannot hit a stranger."""
    while True:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None and info.si_pid == proc.pid:
            return False
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.01)


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _classify(rc: int | None, timed_out: bool, cpu_used: float, cpu_s: int, file_full: bool) -> str | None:
    if timed_out:
        return "timeout"
    if rc in (-signal.SIGXCPU, 128 + signal.SIGXCPU) or cpu_used >= cpu_s - 0.05:
        return "cpu"
    if rc in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ) or file_full:
        return "file_size"
    if rc == MEMORY_EXIT:
        return "memory"
    return None


def _largest_file(root: Path) -> int:
    largest = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                largest = max(largest, os.lstat(os.path.join(dirpath, name)).st_size)
            except OSError:
                continue
    return largest


@dataclass
class _Run:
    returncode: int
    timed_out: bool
    cpu_seconds: float
    seconds: float


def _run_launcher(cmd: list[str], cwd: Path, env: dict[str, str], preexec: Callable[[], None],
                  timeout_s: float, out: Any, err: Any) -> _Run:
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                            preexec_fn=preexec, start_new_session=True, close_fds=True)
    try:
        timed_out = _wait(proc, started + timeout_s)
    finally:
        _killpg(proc.pid)  # stragglers of a finished run, or the whole run on timeout
    # wait4 reaps and reports the CPU time of the child and every descendant it waited for
    # (in the namespace modes the program is a grandchild), which tells a CPU-limit kill apart.
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return _Run(proc.returncode, timed_out, usage.ru_utime + usage.ru_stime, time.monotonic() - started)


@functools.lru_cache(maxsize=1)
def detect_isolation() -> Isolation:
    """The strongest isolation that works here, found by running a trivial program in it."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return "none"
    candidates: list[Isolation] = []
    if os.geteuid() == 0 and shutil.which("setpriv") and shutil.which("mount"):
        candidates.append("namespaces")
    candidates.append("userns")
    for mode in candidates:
        probe = run_python("print('{\"ok\": true}')", timeout_s=20, cpu_s=10, memory_mb=512, isolation=mode)
        if probe.ok and probe.result == {"ok": True}:
            return mode
    return "none"


def run_python(
    code: str,
    *,
    timeout_s: float = 60.0,
    cpu_s: int = 60,
    memory_mb: int = 1024,
    max_output_bytes: int = 1_000_000,
    max_file_mb: int = 64,
    max_procs: int = 32,
    isolation: Isolation | Literal["auto"] = "auto",
    env: dict[str, str] | None = None,
    python: str | None = None,
) -> ExecResult:
    """Run `code` as a Python program in the sandbox; see the module docstring."""
    extra = dict(env or {})
    leaked = [k for k in extra if _SECRET_NAME.search(k)]
    if leaked:
        raise ValueError(f"refusing to pass secret-looking variables into the sandbox: {', '.join(leaked)}")
    mode: Isolation = detect_isolation() if isolation == "auto" else isolation
    interpreter = Path(os.path.realpath(python or sys.executable))
    workdir = Path(tempfile.mkdtemp(prefix="eurekaclaw-sandbox-"))
    limits = {"timeout_s": timeout_s, "cpu_s": cpu_s, "memory_mb": memory_mb, "file_mb": max_file_mb,
              "max_procs": max_procs, "max_output_bytes": max_output_bytes}
    warnings: list[str] = []
    try:
        (workdir / "main.py").write_text(RUNNER, encoding="utf-8")
        (workdir / "user_code.py").write_text(code, encoding="utf-8")
        inner_tmp = "/tmp" if mode != "none" else str(workdir)
        child_env = {**SAFE_ENV, "HOME": inner_tmp, "TMPDIR": inner_tmp, **extra}
        if mode == "namespaces":
            uid, _ = _nobody()
            os.chown(workdir, uid, -1)
            workdir.chmod(0o700)
            nproc: int | None = _count_processes(uid) + max_procs
            cmd = _launcher(workdir, interpreter, mode)
        elif mode == "userns":
            nproc = _count_processes(os.getuid()) + max_procs
            cmd = _launcher(workdir, interpreter, mode)
        else:
            nproc = None if os.geteuid() == 0 else _count_processes(os.getuid()) + max_procs
            cmd = [str(interpreter), "-I", "-B", "main.py"]
            warnings.append("network is NOT isolated: no network namespace could be created here")
            warnings.append("filesystem is NOT contained: the program can write wherever this user can")
            if nproc is None:
                warnings.append("process limit not enforced: running as root without namespaces")
        preexec = _limits_fn(cpu_s, memory_mb, max_file_mb, nproc)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            run = _run_launcher(cmd, workdir, child_env, preexec, timeout_s, out, err)
            stdout, out_cut = _read_capped(out, max_output_bytes)
            stderr, err_cut = _read_capped(err, max_output_bytes)
            written = max(_largest_file(workdir), out.seek(0, os.SEEK_END), err.seek(0, os.SEEK_END))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    rc, timed_out = run.returncode, run.timed_out
    result, json_error = _parse_json(stdout) if not timed_out else (None, "timed out")
    limit = _classify(rc, timed_out, run.cpu_seconds, cpu_s, written >= max_file_mb * 2**20)
    seconds = run.seconds
    isolation_info = {
        "mode": mode,
        "network": mode != "none",
        "pid_namespace": mode != "none",
        "filesystem": {"namespaces": "private", "userns": "user-permissions", "none": "none"}[mode],
        "user": "nobody" if mode == "namespaces" else "self",
    }
    if mode == "userns":
        warnings.append("filesystem only partly contained: outside the hidden directories the program has this user's permissions")
    return ExecResult(
        ok=rc == 0 and not timed_out and json_error is None,
        returncode=rc, stdout=stdout, stderr=stderr, result=result, json_error=json_error,
        stdout_truncated=out_cut, stderr_truncated=err_cut, timed_out=timed_out, limit=limit,
        seconds=round(seconds, 3), isolation=isolation_info, limits=limits, warnings=warnings,
    )


class CodeExecutionTool(BaseTool):
    name = "run_python"
    description = (
        "Run a short Python program in a sandbox (no network, no secrets, CPU/memory/time "
        "limits) and return its JSON output. The program must print one JSON object on stdout."
    )

    def __init__(self, *, timeout_s: float = 60.0, cpu_s: int = 60, memory_mb: int = 1024, require_isolation: bool = True):
        self.timeout_s, self.cpu_s, self.memory_mb = timeout_s, cpu_s, memory_mb
        self.require_isolation = require_isolation

    def input_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"code": {"type": "string", "description": "Python 3 source"}},
                "required": ["code"]}

    async def call(self, **kwargs: Any) -> Any:
        if self.require_isolation and detect_isolation() == "none":
            raise RuntimeError("code execution is disabled: no sandbox isolation is available on this machine")
        result = await asyncio.to_thread(run_python, str(kwargs["code"]), timeout_s=self.timeout_s,
                                         cpu_s=self.cpu_s, memory_mb=self.memory_mb, max_output_bytes=20_000)
        return {k: v for k, v in result.to_dict().items() if k not in ("limits",)}
