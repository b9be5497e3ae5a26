"""The bwrap command line: namespaces, the read-only root, tmpfs mounts, the clean environment
and (as root) the switch to uid 65534 with no capabilities."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

# Relative imports: the hostile-program test loads this package by path under a bare
# interpreter, where `eurekaclaw` is not importable.
from .exposure import inside, private_paths, secret_dirs
from .limits import SAFE_PATH, SANDBOX_GID, SANDBOX_UID, SYSTEM_FILES, Limits, SandboxUnavailable


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
        if not any(inside(p, k) for k in kept):
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


def build_command(
    argv: list[str],
    *,
    limits: Limits,
    ro_paths: Iterable[str | Path] = (),
    rw_dir: Path | None = None,
    files: dict[str, int] | None = None,
    env: dict[str, str] | None = None,
    cwd: str = "/tmp",
    root_mode: bool | None = None,
) -> list[str]:
    """The bwrap command line (files: sandbox path -> readable fd of its content)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    root_mode = os.geteuid() == 0 if root_mode is None else root_mode
    cmd = [
        bwrap,
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ]
    if root_mode:
        cmd += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        cmd += ["--unshare-user", "--disable-userns", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
    exposed = _exposed(ro_paths)
    made: set[Path] = set()  # directories the command line has created or mounted so far
    cmd += _read_only_root(exposed, made)
    cmd += _scratch_mounts(limits, made)
    cmd += _hidden_private_dirs(exposed, rw_dir)
    cmd += _writable_and_data(rw_dir, files, made)
    cmd += ["--remount-ro", "/", "--chdir", cwd]
    for key, value in {"PATH": SAFE_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", **(env or {})}.items():
        cmd += ["--setenv", key, value]
    return [*cmd, "--", *_inner_command(limits, root_mode), *argv]


def _exposed(ro_paths: Iterable[str | Path]) -> list[Path]:
    """/usr and the requested read-only paths, refusing any that is (inside) a secret directory or /."""
    secret = secret_dirs()
    exposed = _resolve(["/usr", *ro_paths])
    for p in exposed:
        if any(inside(p, s) for s in secret) or p == Path("/"):
            raise SandboxUnavailable(f"refusing to expose {p} in the sandbox: it is (inside) EUREKACLAW_DIR or /")
    return exposed


def _read_only_root(exposed: list[Path], made: set[Path]) -> list[str]:
    """The exposed trees, the top-level bin/lib directories (or their symlinks) and the system files."""
    args: list[str] = []
    for p in exposed:
        args += _parents_args(p, made)
        args += ["--ro-bind", str(p), str(p)]
        made.add(p)
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir() and not any(inside(host, p) for p in exposed):
            args += ["--ro-bind", str(host), str(host)]
    for f in SYSTEM_FILES:
        if os.path.isfile(f) and not any(inside(Path(f), p) for p in exposed):
            args += _parents_args(Path(f), made) + ["--ro-bind", f, f]
    return args


def _scratch_mounts(limits: Limits, made: set[Path]) -> list[str]:
    tmp_bytes = str(limits.tmp_mb * 2**20)
    shm_bytes = str(min(limits.tmp_mb, 16) * 2**20)
    made.update({Path("/proc"), Path("/dev"), Path("/dev/shm"), Path("/tmp")})
    return [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        shm_bytes,
        "--perms",
        "1777",
        "--tmpfs",
        "/dev/shm",
        "--remount-ro",
        "/dev",
        "--size",
        tmp_bytes,
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
    ]


def _hidden_private_dirs(exposed: list[Path], rw_dir: Path | None) -> list[str]:
    """A private directory inside an exposed tree: an empty read-only tmpfs over it (unless it
    holds, or lies inside, the writable directory)."""
    args: list[str] = []
    for priv in private_paths():
        if any(inside(priv, p) and priv != p for p in exposed) and priv.is_dir():
            if rw_dir is not None and (
                inside(Path(os.path.realpath(rw_dir)), priv) or inside(priv, Path(os.path.realpath(rw_dir)))
            ):
                continue
            args += ["--size", "4096", "--tmpfs", str(priv), "--remount-ro", str(priv)]
    return args


def _writable_and_data(rw_dir: Path | None, files: dict[str, int] | None, made: set[Path]) -> list[str]:
    args: list[str] = []
    if rw_dir is not None:
        real = Path(os.path.realpath(rw_dir))
        args += _parents_args(real, made) + ["--bind", str(real), str(real)]
    for dest, fd in (files or {}).items():
        args += _parents_args(Path(dest), made) + ["--perms", "0444", "--ro-bind-data", str(fd), dest]
    return args


def _inner_command(limits: Limits, root_mode: bool) -> list[str]:
    """prlimit for the process cap; as root, first setpriv to uid 65534 with no capabilities."""
    inner = [
        shutil.which("prlimit", path=SAFE_PATH) or "/usr/bin/prlimit",
        f"--nproc={limits.max_procs}:{limits.max_procs}",
        "--",
    ]
    if root_mode:
        inner = [
            shutil.which("setpriv", path=SAFE_PATH) or "/usr/bin/setpriv",
            f"--reuid={SANDBOX_UID}",
            f"--regid={SANDBOX_GID}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
            shutil.which("unshare", path=SAFE_PATH) or "/usr/bin/unshare",
            "--user",
            "--",
            *inner,
        ]
    return inner
