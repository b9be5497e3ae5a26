"""The bench at scale, offline with the honest scripted model: warm workers interrupted by
Ctrl+C and resumed give every run exactly once; a session past its wall limit is recorded as
undecided with its reason; every record says where its time went."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from integration.bench.demo_truth import EXPECTED, HONEST

from eurekaclaw.bench import runner
from eurekaclaw.bench.models import BenchConfig
from eurekaclaw.bench.problems import load_problem_set, select

pytestmark = pytest.mark.slow


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(tmp_path / "home"), "EUREKACLAW_OFFLINE": "1", "NO_COLOR": "1"})
    return env


def test_warm_workers_interrupted_and_resumed_run_every_run_once(tmp_path: Path) -> None:
    out = tmp_path / "b"
    cmd = [sys.executable, "-m", "eurekaclaw", "bench", "demo", "--llm", HONEST, "-w", "2", "-o", str(out)]
    # its own process group, so the SIGINT reaches the workers too, as Ctrl+C in a terminal does
    proc = subprocess.Popen(
        cmd,
        env=_env(tmp_path),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    results = out / "results.jsonl"
    deadline = time.monotonic() + 300  # a guard against a hang, not a measurement
    while not (results.exists() and results.read_text().count("\n") >= 1) and proc.poll() is None:
        assert time.monotonic() < deadline, "the first run never finished"
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert 1 <= len(kept) < 4

    resumed = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "bench", "--resume", str(out), "-w", "2", "--json"],
        env=_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 4 and len({r["run_id"] for r in records}) == 4  # each run once
    assert records[: len(kept)] == kept  # the runs finished before Ctrl+C were not redone
    assert {r["problem_id"]: r["verdict"] for r in records} == EXPECTED  # as the sequential bench gives
    assert all(r["worker"].split(":")[-1] != str(proc.pid) for r in records)  # in the workers

    manifest = json.loads((out / "bench.json").read_text())
    executions = manifest["executions"]
    assert [e["executor"] for e in executions] == ["warm", "warm"]
    assert all(len(e["worker_startups"]) == 2 and e["worker_startup_s_total"] > 0 for e in executions[1:])
    assert sum(e["runs_finished"] for e in executions) == 4
    for record in records:  # where the time went, on every record
        timing = record["timing"]
        assert set(timing["stages"]) >= {"formalize", "theory"} and record["cpu_s"] is not None
        assert timing["model"]["calls"] == record["llm_calls"]
    summary = (out / "summary.md").read_text()
    assert "## Slowest runs" in summary and "worker start-up" in summary


def test_a_session_past_its_wall_limit_is_undecided_with_its_reason(tmp_path: Path) -> None:
    problems = select([load_problem_set("demo")], only=["demo-square"])
    options = runner.BenchOptions(
        problem_sets=["demo"],
        problems=problems,
        configs=[BenchConfig(label="honest", llm=HONEST)],
        session_timeout_s=0.05,
    )
    outcome = runner.run_bench(options, tmp_path / "b")
    (record,) = outcome.records
    assert record.timed_out and record.verdict == "undecided" and record.correct is False
    assert record.session_status == "timed_out" and "session timeout" in record.reason
    assert outcome.summary["overall"]["honest"]["timed_out"] == 1
    assert outcome.summary["overall"]["honest"]["proved"]["hits"] == 0
    line = json.loads((tmp_path / "b" / "results.jsonl").read_text())
    assert line["run_id"] == "honest/demo-square/1" and line["timed_out"] is True  # recorded, not lost
