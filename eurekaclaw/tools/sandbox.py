"""Run an untrusted program inside bubblewrap (`bwrap`, the sandbox Flatpak uses).

Standard library only (tests load this file by path under a bare interpreter). One entry point,
run_sandboxed(), used for model-written Python (tools/code_exec.py), coqc (verify/formal.py) and
latexmk (agents/writer/compile.py). Every run gets:

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
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
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
        return {"available": self.available, "reason": self.reason, "version": self.version,
                "mode": self.mode, "memory_cap": self.memory_cap}


# --------------------------------------------------------------------------------------------
# What must never be visible
# --------------------------------------------------------------------------------------------


def _dotenv_value(path: Path, key: str) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:1_000_000]
    except OSError:
        return None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[7:].lstrip()
        name, sep, value = line.partition("=")
        if sep and name.strip() == key:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            return value or None
    return None


def _settings_dir() -> str | None:
    try:  # the package's settings, when importable (not under the bare test interpreter)
        from eurekaclaw.config import load_settings

        return str(load_settings().eurekaclaw_dir)
    except Exception:  # noqa: BLE001 - a bad setting must not open the sandbox
        return None


def private_paths() -> list[Path]:
    """Host paths the sandbox must not show: home, EUREKACLAW_DIR from every source, the
    current directory, the host's temporary directories and /run (sockets)."""
    raw: list[str | None] = [
        os.environ.get("HOME"), os.path.expanduser("~"), os.environ.get("EUREKACLAW_DIR"),
        _dotenv_value(Path(".env"), "EUREKACLAW_DIR"), _settings_dir(), "~/.eurekaclaw",
        os.getcwd() if os.path.isdir(".") else None, tempfile.gettempdir(), os.environ.get("TMPDIR"),
        "/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm",
    ]
    out: list[Path] = []
    for item in raw:
        if not item:
            continue
        path = Path(os.path.realpath(os.path.expandvars(os.path.expanduser(item))))
        if path != Path("/") and path not in out:
            out.append(path)
    return out


def _secret_dirs() -> list[Path]:
    """Places no bind may come from at all (EUREKACLAW_DIR holds sessions and API keys)."""
    raw = [os.environ.get("EUREKACLAW_DIR"), _dotenv_value(Path(".env"), "EUREKACLAW_DIR"), _settings_dir(),
           "~/.eurekaclaw"]
    return [Path(os.path.realpath(os.path.expanduser(r))) for r in raw if r]


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


# --------------------------------------------------------------------------------------------
# cgroup v2
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def cgroup_parent() -> Path | None:
    """This process's cgroup v2 directory when it can hold children with the memory and pids
    controllers and is writable; else None (RLIMIT_AS × process count is used instead)."""
    try:
        rel = next(line[3:].strip() for line in Path("/proc/self/cgroup").read_text().splitlines()
                   if line.startswith("0::"))
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


def _make_cgroup(limits: Limits) -> Path | None:
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
        _remove_cgroup(child)
        return None


def _remove_cgroup(child: Path) -> bool:
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


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------


def _resolve(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        real = Path(os.path.realpath(p))
        if os.path.exists(real) and real not in out:
            out.append(real)
    # drop paths inside another exposed one
    out.sort(key=lambda p: len(p.parts))
    kept: list[Path] = []
    for p in out:
        if not any(_inside(p, k) for k in kept):
            kept.append(p)
    return kept


def _parents_args(dest: Path, made: set[Path]) -> list[str]:
    args: list[str] = []
    for parent in reversed(dest.parents):
        if parent == Path("/") or parent in made:
            continue
        made.add(parent)
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def build_command(argv: list[str], *, limits: Limits, ro_paths: Iterable[str | Path] = (), rw_dir: Path | None = None,
                  files: dict[str, int] | None = None, env: dict[str, str] | None = None, cwd: str = "/tmp",
                  root_mode: bool | None = None) -> list[str]:
    """The bwrap command line (files: sandbox path -> readable fd of its content)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    root_mode = os.geteuid() == 0 if root_mode is None else root_mode
    cmd = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
           "--die-with-parent", "--new-session", "--clearenv"]
    if root_mode:
        cmd += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        cmd += ["--unshare-user", "--disable-userns", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
    secret = _secret_dirs()
    exposed = _resolve(["/usr", *ro_paths])
    for p in exposed:
        if any(_inside(p, s) for s in secret) or p == Path("/"):
            raise SandboxUnavailable(f"refusing to expose {p} in the sandbox: it is (inside) EUREKACLAW_DIR or /")
    made: set[Path] = set()
    for p in exposed:
        cmd += _parents_args(p, made)
        cmd += ["--ro-bind", str(p), str(p)]
        made.add(p)
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            cmd += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir() and not any(_inside(host, p) for p in exposed):
            cmd += ["--ro-bind", str(host), str(host)]
    for f in SYSTEM_FILES:
        if os.path.isfile(f) and not any(_inside(Path(f), p) for p in exposed):
            cmd += _parents_args(Path(f), made) + ["--ro-bind", f, f]
    tmp_bytes = str(limits.tmp_mb * 2**20)
    shm_bytes = str(min(limits.tmp_mb, 16) * 2**20)
    cmd += ["--proc", "/proc", "--dev", "/dev", "--size", shm_bytes, "--perms", "1777", "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev", "--size", tmp_bytes, "--perms", "1777", "--tmpfs", "/tmp"]
    made.update({Path("/proc"), Path("/dev"), Path("/dev/shm"), Path("/tmp")})
    # a private directory inside an exposed tree: an empty read-only tmpfs over it
    for priv in private_paths():
        if any(_inside(priv, p) and priv != p for p in exposed) and priv.is_dir():
            if rw_dir is not None and (_inside(Path(os.path.realpath(rw_dir)), priv) or _inside(priv, Path(os.path.realpath(rw_dir)))):
                continue
            cmd += ["--size", "4096", "--tmpfs", str(priv), "--remount-ro", str(priv)]
    if rw_dir is not None:
        real = Path(os.path.realpath(rw_dir))
        cmd += _parents_args(real, made) + ["--bind", str(real), str(real)]
    for dest, fd in (files or {}).items():
        cmd += _parents_args(Path(dest), made) + ["--perms", "0444", "--ro-bind-data", str(fd), dest]
    cmd += ["--remount-ro", "/", "--chdir", cwd]
    for key, value in {"PATH": SAFE_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", **(env or {})}.items():
        cmd += ["--setenv", key, value]
    inner = [shutil.which("prlimit", path=SAFE_PATH) or "/usr/bin/prlimit",
             f"--nproc={limits.max_procs}:{limits.max_procs}", "--"]
    if root_mode:
        inner = [shutil.which("setpriv", path=SAFE_PATH) or "/usr/bin/setpriv", f"--reuid={SANDBOX_UID}",
                 f"--regid={SANDBOX_GID}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--",
                 shutil.which("unshare", path=SAFE_PATH) or "/usr/bin/unshare", "--user", "--", *inner]
    return [*cmd, "--", *inner, *argv]


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


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
    fd = os.memfd_create(name, 0) if hasattr(os, "memfd_create") else os.open(tempfile.gettempdir(), os.O_TMPFILE | os.O_RDWR)
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


def run_sandboxed(argv: list[str], *, limits: Limits = Limits(), ro_paths: Iterable[str | Path] = (),
                  rw_dir: Path | None = None, files: dict[str, bytes] | None = None,
                  env: dict[str, str] | None = None, cwd: str = "/tmp", merge_stderr: bool = False,
                  stop: threading.Event | None = None) -> SandboxRun:
    """Run argv in a fresh sandbox (see the module doc). `rw_dir` (host dir, made by
    sandbox_workdir()) is bound read-write at its own path; `files` are placed read-only."""
    fds: list[int] = []
    cgroup = _make_cgroup(limits)
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
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w, cwd="/",
                                    env={"PATH": SAFE_PATH}, pass_fds=tuple(fds), start_new_session=True,
                                    preexec_fn=_preexec(limits, per_process, cgroup))
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
        oom = _remove_cgroup(cgroup) if cgroup is not None else False
    err = readers[1] if len(readers) > 1 else None
    return SandboxRun(
        returncode=None if timed_out else rc, stdout=readers[0].data(), stderr=err.data() if err else b"",
        stdout_truncated=readers[0].truncated, stderr_truncated=bool(err and err.truncated), timed_out=timed_out,
        cpu_seconds=usage.ru_utime + usage.ru_stime, seconds=time.monotonic() - started,
        memory_cap="cgroup" if cgroup is not None else "rlimit", per_process_mb=per_process, oom_killed=oom,
        limits={"timeout_s": limits.timeout_s, "cpu_s": limits.cpu_s, "memory_mb": limits.memory_mb,
                "memory_per_process_mb": per_process, "max_procs": limits.max_procs, "file_mb": limits.file_mb,
                "tmp_mb": limits.tmp_mb, "max_output_bytes": limits.max_output_bytes,
                "memory_cap": "cgroup" if cgroup is not None else "rlimit"},
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


def run_python_sandboxed(code: str, *, limits: Limits = Limits(), env: dict[str, str] | None = None,
                         python: str | None = None) -> SandboxRun:
    """Run Python source as a program in the sandbox, with /tmp as its working directory."""
    import sys

    interpreter = Path(python or sys.executable).resolve()
    return run_sandboxed([str(interpreter), "-I", "-B", "-c", PYTHON_RUNNER], limits=limits,
                         ro_paths=interpreter_paths(interpreter), files={USER_CODE: code.encode("utf-8", "replace")},
                         env=env, cwd="/tmp")


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
        version = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout.strip() or None
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
        return SandboxStatus(False, f"bubblewrap cannot create its namespaces here ({why}); unprivileged user "
                                    "namespaces may be disabled", version, mode)
    cap = "cgroup v2" if cgroup_parent() is not None else "RLIMIT_AS × process count (no writable cgroup v2)"
    return SandboxStatus(True, f"{version or 'bwrap'} works ({'root: setpriv to uid 65534' if mode == 'root' else 'user namespaces'}; "
                               f"memory cap: {cap})", version, mode, "cgroup" if cgroup_parent() else "rlimit")
