"""The bubblewrap sandbox against hostile programs, as root and as an unprivileged user (uid
65534 through setpriv). Each case of sandbox_hostile_driver.py must be contained.

The unprivileged variant needs an interpreter uid 65534 can run (this one, else /usr/bin/python3)
and unprivileged user namespaces; without them it skips with the reason (fails under
EUREKACLAW_REQUIRE_TOOLS=1, where CI provides both)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from toolreq import tools_required

import eurekaclaw.sandbox as sandbox_module

DRIVER = Path(__file__).with_name("sandbox_hostile_driver.py")
SANDBOX = Path(sandbox_module.__file__).parent  # the package directory
CASES = (
    "env_secrets",
    "secret_files",
    "writes_outside",
    "tcp",
    "udp",
    "unix_sockets",
    "mount_umount",
    "ptrace",
    "fork_bomb",
    "memory_many_processes",
    "disk_fill",
    "cpu_loop",
    "kill_parent",
    "die_with_parent",
)
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _skip(message: str) -> None:
    if tools_required():
        pytest.fail(f"required tool missing: {message}")
    pytest.skip(message)


def _nobody_python() -> str | None:
    for candidate in (sys.executable, "/usr/bin/python3"):
        if not candidate or not os.path.exists(candidate):
            continue
        probe = subprocess.run(
            [
                *NOBODY,
                candidate,
                "-c",
                f"import sys; open({str(SANDBOX / '__init__.py')!r}).read(); "
                "import os; os.listdir(sys.base_prefix); os.listdir(os.path.dirname(sys.executable)); assert sys.version_info >= (3, 10)",
            ],
            capture_output=True,
            timeout=30,
        )
        if probe.returncode == 0:
            return candidate
    return None


def _run(prefix: list[str], python: str, owner: int | None) -> dict[str, dict[str, object]]:
    base = Path(tempfile.mkdtemp(prefix="eurekaclaw-hostile-"))
    try:
        base.chmod(0o755)
        if owner is not None:
            os.chown(base, owner, owner)
        proc = subprocess.run(
            [*prefix, python, str(DRIVER), str(SANDBOX), str(base)],
            capture_output=True,
            text=True,
            timeout=240,
            cwd=str(base),
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _check(results: dict[str, dict[str, object]]) -> None:
    assert set(results) == set(CASES)
    escaped = {k: v["detail"] for k, v in results.items() if not v["contained"]}
    assert not escaped, escaped


def test_hostile_programs_contained_as_this_user():
    if not sandbox_module.status().available:
        _skip(f"no sandbox: {sandbox_module.status().reason}")
    _check(_run([], sys.executable, None))


def test_hostile_programs_contained_as_unprivileged_user():
    if os.geteuid() != 0:
        if not sandbox_module.status().available:
            _skip(f"no sandbox: {sandbox_module.status().reason}")
        _check(_run([], sys.executable, None))  # already unprivileged
        return
    if shutil.which("setpriv") is None:
        _skip("setpriv (util-linux) is needed to run as uid 65534")
    python = _nobody_python()
    if python is None:
        _skip("no Python interpreter that uid 65534 can run (and read this checkout with)")
    probe = subprocess.run(
        [*NOBODY, "bwrap", "--unshare-user", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0:
        _skip(
            f"bwrap does not work for an unprivileged user here (unprivileged user namespaces disabled?): "
            f"{probe.stderr.strip()[-200:]}"
        )
    _check(_run(NOBODY, python, 65534))
