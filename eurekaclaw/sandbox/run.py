"""Running a program in a fresh sandbox: limits applied between fork and exec, capped output
pipes, the wall clock, and the clean-up of the process group and the cgroup."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

# Relative imports: the hostile-program test loads this package by path under a bare
# interpreter, where `eurekaclaw` is not importable.
from .cgroup import make_cgroup, remove_cgroup
from .command import build_command
from .limits import (
    PYTHON_RUNNER,
    SAFE_PATH,
    SANDBOX_GID,
    SANDBOX_UID,
    USER_CODE,
    Limits,
    SandboxRun,
)


def _preexec(limits: Limits, per_process_mb: int, cgroup: Path | None) -> Callable[[], None]:
    def apply() -> None:  # in the child between fork and exec
        if cgroup is not None:
            with open(cgroup / "cgroup.procs", "w") as fh:
                fh.write("0")
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        mem = per_process_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        size = limits.file_mb * 2**20
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


class _Reader(threading.Thread):
    """Reads a pipe up to `cap` bytes, then closes it (the writer gets EPIPE)."""

    def __init__(self, fd: int, cap: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.cap = fd, cap
        self.chunks: list[bytes] = []
        self.size = 0
        self.truncated = False

    def run(self) -> None:
        try:
            while True:
                data = os.read(self.fd, 65536)
                if not data:
                    break
                room = self.cap - self.size
                if len(data) > room:
                    self.chunks.append(data[:room])
                    self.size = self.cap
                    self.truncated = True
                    break
                self.chunks.append(data)
                self.size += len(data)
        except OSError:
            pass
        finally:
            os.close(self.fd)

    def data(self) -> bytes:
        return b"".join(self.chunks)


def _memfd(name: str, data: bytes) -> int:
    fd = (
        os.memfd_create(name, 0)
        if hasattr(os, "memfd_create")
        else os.open(tempfile.gettempdir(), os.O_TMPFILE | os.O_RDWR)
    )
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _wait(proc: subprocess.Popen[bytes], deadline: float, stop: threading.Event | None) -> bool:
    """Wait without reaping until exit, deadline or stop; True when it has to be killed."""
    while True:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None and info.si_pid == proc.pid:
            return False
        if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
            return True
        time.sleep(0.005)


def run_sandboxed(
    argv: list[str],
    *,
    limits: Limits = Limits(),
    ro_paths: Iterable[str | Path] = (),
    rw_dir: Path | None = None,
    files: dict[str, bytes] | None = None,
    env: dict[str, str] | None = None,
    cwd: str = "/tmp",
    merge_stderr: bool = False,
    stop: threading.Event | None = None,
) -> SandboxRun:
    """Run argv in a fresh sandbox (see the module doc). `rw_dir` (host dir, made by
    sandbox_workdir()) is bound read-write at its own path; `files` are placed read-only."""
    fds: list[int] = []
    cgroup = make_cgroup(limits)
    per_process = limits.per_process_mb(cgroup is not None)
    readers: list[_Reader] = []
    started = time.monotonic()
    try:
        fd_map = {}
        for dest, data in (files or {}).items():
            fd = _memfd(Path(dest).name, data)
            fds.append(fd)
            fd_map[dest] = fd
        cmd = build_command(argv, limits=limits, ro_paths=ro_paths, rw_dir=rw_dir, files=fd_map, env=env, cwd=cwd)
        out_r, out_w = os.pipe()
        if merge_stderr:
            err_r, err_w = None, out_w
        else:
            err_r, err_w = os.pipe()
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=err_w,
                cwd="/",
                env={"PATH": SAFE_PATH},
                pass_fds=tuple(fds),
                start_new_session=True,
                preexec_fn=_preexec(limits, per_process, cgroup),
            )
        finally:
            os.close(out_w)
            if err_r is not None:
                os.close(err_w)
        readers = [_Reader(out_r, limits.max_output_bytes)]
        if err_r is not None:
            readers.append(_Reader(err_r, limits.max_output_bytes))
        for r in readers:
            r.start()
        try:
            timed_out = _wait(proc, started + limits.timeout_s, stop)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # stragglers, or everything on timeout
            except (ProcessLookupError, PermissionError):
                pass
        _, status, usage = os.wait4(proc.pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        for r in readers:
            r.join(timeout=5)
    finally:
        for fd in fds:
            os.close(fd)
        oom = remove_cgroup(cgroup) if cgroup is not None else False
    err = readers[1] if len(readers) > 1 else None
    return SandboxRun(
        returncode=None if timed_out else rc,
        stdout=readers[0].data(),
        stderr=err.data() if err else b"",
        stdout_truncated=readers[0].truncated,
        stderr_truncated=bool(err and err.truncated),
        timed_out=timed_out,
        cpu_seconds=usage.ru_utime + usage.ru_stime,
        seconds=time.monotonic() - started,
        memory_cap="cgroup" if cgroup is not None else "rlimit",
        per_process_mb=per_process,
        oom_killed=oom,
        limits={
            "timeout_s": limits.timeout_s,
            "cpu_s": limits.cpu_s,
            "memory_mb": limits.memory_mb,
            "memory_per_process_mb": per_process,
            "max_procs": limits.max_procs,
            "file_mb": limits.file_mb,
            "tmp_mb": limits.tmp_mb,
            "max_output_bytes": limits.max_output_bytes,
            "memory_cap": "cgroup" if cgroup is not None else "rlimit",
        },
    )


def interpreter_paths(python: Path) -> list[str]:
    """What a Python interpreter needs besides /usr: its prefixes (with their site-packages)."""
    import site
    import sys

    paths = {str(python.parent.parent)}
    if python == Path(sys.executable).resolve():
        paths.update({sys.base_prefix, sys.prefix})
        try:
            paths.update(p for p in site.getsitepackages() if Path(p).is_dir())
        except AttributeError:
            pass
    return sorted(paths)


def run_python_sandboxed(
    code: str, *, limits: Limits = Limits(), env: dict[str, str] | None = None, python: str | None = None
) -> SandboxRun:
    """Run Python source as a program in the sandbox, with /tmp as its working directory."""
    import sys

    interpreter = Path(python or sys.executable).resolve()
    return run_sandboxed(
        [str(interpreter), "-I", "-B", "-c", PYTHON_RUNNER],
        limits=limits,
        ro_paths=interpreter_paths(interpreter),
        files={USER_CODE: code.encode("utf-8", "replace")},
        env=env,
        cwd="/tmp",
    )


class sandbox_workdir:  # noqa: N801 - used like tempfile.TemporaryDirectory
    """A host temporary directory the sandbox user can write (and that nobody else can read),
    removed afterwards: the only writable host place a sandboxed tool gets."""

    def __init__(self, prefix: str = "eurekaclaw-") -> None:
        self.path = Path(tempfile.mkdtemp(prefix=prefix))

    def __enter__(self) -> Path:
        self.path.chmod(0o700)
        if os.geteuid() == 0:
            # bwrap (root without CAP_DAC_OVERRIDE) must be able to chdir into it: search only
            os.chown(self.path, SANDBOX_UID, SANDBOX_GID)
            self.path.chmod(0o711)
        return self.path

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
