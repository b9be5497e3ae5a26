"""Disk full and read-only: one line naming the path and the fix, exit 1, no traceback, and the
session resumes once space is back. Runs in a private mount namespace on a small tmpfs
(`unshare -m`, root only); skipped with the reason otherwise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _namespaces_usable() -> str | None:
    if os.geteuid() != 0:
        return "needs root to mount a tmpfs in a private mount namespace"
    if shutil.which("unshare") is None:
        return "unshare(1) is not installed"
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=8k tmpfs /mnt && umount /mnt"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0:
        return f"cannot mount a tmpfs in a private namespace: {probe.stderr.strip()[:200]}"
    return None


SKIP = _namespaces_usable()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=SKIP or "")


def in_namespace(script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    path = tmp_path / "script.sh"
    path.write_text(script)
    return subprocess.run(["unshare", "-m", "sh", str(path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)


def cli_env(home: Path) -> str:
    drop = ("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update({"EUREKACLAW_DIR": str(home), "EUREKACLAW_OFFLINE": "1", "COLUMNS": "200", "NO_COLOR": "1"})
    return " ".join(f"{k}={json.dumps(v)}" for k, v in env.items() if k.isidentifier())


def test_read_only_dir_is_one_line_exit_1(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    responder = HERE.parents[1] / "e2e" / "demo_responder.py"
    proc = in_namespace(
        textwrap.dedent(f"""
        mount -t tmpfs -o size=1m tmpfs {home}
        mkdir -p {home}/runs
        mount -o remount,ro {home}
        env -i {cli_env(home)} {sys.executable} -m eurekaclaw prove "x^2 >= 0" --llm scripted:{responder} >out.txt 2>err.txt
        echo $? > rc.txt
        umount {home}
    """),
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    err = (tmp_path / "err.txt").read_text()
    assert (tmp_path / "rc.txt").read_text().strip() == "1", err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("error: cannot write ") and str(home / "runs") in lines[0]
    assert "Read-only file system" in lines[0] and "make the file system writable" in lines[0]


DRIVER = """
import asyncio, json, os, sys
sys.path.insert(0, {tests!r})
from test_damaged_state import Formalize, Theory, stages, orch, SPEC
from eurekaclaw.agents.stage import StageOutcome
from eurekaclaw.errors import StorageError
from eurekaclaw.store.session import Workspace

home, filler = {home!r}, {filler!r}

class Bulky(Formalize):
    async def run(self, ctx, spec, *, resume=False):
        if os.path.exists(filler):  # the disk fills up while this stage writes its artifact
            try:
                with open(filler, "ab", buffering=0) as fh:
                    while True:
                        fh.write(b"x" * 4096)
            except OSError:
                pass
        return await super().run(ctx, spec, resume=resume)

async def main():
    out = {{}}
    open(filler, "wb").close()
    try:
        await orch(stages(Bulky(), Theory())).run(SPEC)
        out["first"] = "no error"
    except StorageError as exc:
        out["first"] = exc.user_message()
        out["exit_code"] = exc.exit_code
        out["session_id"] = exc.session_id
    os.remove(filler)  # free space
    session = Workspace(home).resolve(out["session_id"])
    out["status_before"] = session.load_meta().status
    out["tmp_left"] = [p.name for p in session.path.iterdir() if p.name.endswith(".tmp")]
    result = await orch(stages(Bulky(), Theory())).resume(session)
    out["resumed"] = result.status
    out["theory"] = result.theory_status
    print(json.dumps(out))

asyncio.run(main())
"""


def test_disk_full_mid_run_names_the_path_and_resumes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER.format(tests=str(HERE), home=str(home), filler=str(home / "filler")))
    proc = in_namespace(
        textwrap.dedent(f"""
        mount -t tmpfs -o size=256k tmpfs {home}
        env -i {cli_env(home)} {sys.executable} {driver}
        rc=$?
        umount {home}
        exit $rc
    """),
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    sid = out["session_id"]
    assert sid and out["exit_code"] == 1
    assert out["first"].startswith(f"cannot write {home}/runs/{sid}/"), json.dumps(out)
    assert "No space left on device" in out["first"] and f"free space, then `eurekaclaw resume {sid}`" in out["first"]
    # session.json may not fit on the full disk either: a running status with no live process
    # is what `sessions` lists as interrupted
    assert out["status_before"] in ("interrupted", "running") and out["tmp_left"] == []
    assert out["theory"] == "proved" and out["resumed"] in ("completed", "partial")
    assert "Traceback" not in proc.stderr
