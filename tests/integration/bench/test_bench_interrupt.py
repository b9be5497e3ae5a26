"""Ctrl+C during a bench: exit 130 with the resume command, finished runs kept; `--resume`
then runs only the rest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eurekaclaw.bench.configs import DEMO_DIR

pytestmark = pytest.mark.slow


def test_ctrl_c_keeps_finished_runs_and_resume_completes_the_bench(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(tmp_path / "home"), "EUREKACLAW_OFFLINE": "1", "NO_COLOR": "1"})
    out = tmp_path / "b"
    cmd = [
        sys.executable,
        "-m",
        "eurekaclaw",
        "bench",
        "demo",
        "--llm",
        f"scripted:{DEMO_DIR / 'honest.py'}",
        "-o",
        str(out),
    ]
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 300  # a guard against a hang, not a measurement
    while not (results.exists() and results.read_text().count("\n") >= 1) and proc.poll() is None:
        assert time.monotonic() < deadline, "the first run never finished"
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr[-2000:]
    assert f"eurekaclaw bench --resume {out}" in stderr and "Traceback" not in stderr
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert 1 <= len(kept) < 4

    resumed = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "bench", "--resume", str(out), "--json"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(r["run_id"] for r in records) == sorted({r["run_id"] for r in records})  # nothing twice
    assert len(records) == 4
    assert records[: len(kept)] == kept  # the runs finished before Ctrl+C were not redone
    assert json.loads(resumed.stdout)["overall"]["honest"]["correct"]["hits"] == 4
