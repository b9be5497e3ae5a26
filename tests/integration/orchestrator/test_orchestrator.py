from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_stages import CountingStage, StepStage

from eurekaclaw.config import load_settings
from eurekaclaw.errors import BudgetExceededError, RunInterrupted
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.orchestrator.meta import MetaOrchestrator
from eurekaclaw.store.files import read_json, read_jsonl
from eurekaclaw.store.session import Workspace
from eurekaclaw.types.tasks import InputSpec

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SPEC = InputSpec(mode="prove", statement="For all real x, x^2 >= 0")


def _stages(**overrides):
    stages = {name: None for name in ("survey", "formalize", "theory", "experiment", "write", "evaluate", "learn")}
    stages.update(overrides)
    return stages


def _orch(stages, backend=None, **settings_overrides) -> MetaOrchestrator:
    return MetaOrchestrator(
        load_settings(**settings_overrides),
        backend=backend or ScriptedBackend(responder=lambda r: "ok"),
        stages=stages,
        plugins={},
    )


async def test_stage_retry_success_marks_the_stage_completed() -> None:
    flaky = CountingStage("theory", fail_times=1)
    result = await _orch(_stages(theory=flaky), stage_max_retries=1).run(SPEC)
    rec = next(r for r in result.stages if r.name == "theory")
    assert rec.status == "completed" and rec.attempts == 2
    assert flaky.runs == 2


async def test_stage_failing_past_its_budget_leaves_a_partial_session() -> None:
    broken = CountingStage("theory", fail_times=5)
    writer = CountingStage("write", needs="theory_done")
    result = await _orch(_stages(theory=broken, write=writer), stage_max_retries=1).run(SPEC)
    by_name = {r.name: r for r in result.stages}
    assert by_name["theory"].status == "failed" and "attempt 2 broke" in by_name["theory"].reason
    assert by_name["write"].status == "skipped" and "theory_done" in by_name["write"].reason
    assert result.status == "partial"
    assert writer.runs == 0


async def test_absent_stages_are_reported_not_faked() -> None:
    result = await _orch(_stages(survey=CountingStage("survey"))).run(SPEC)
    statuses = {r.name: r.status for r in result.stages}
    assert statuses["survey"] == "completed"
    assert all(statuses[n] == "absent" for n in ("formalize", "theory", "write", "learn"))
    assert result.status == "partial"


async def test_missing_input_skips_with_reason_and_events_are_logged(isolated_home: Path) -> None:
    result = await _orch(_stages(write=CountingStage("write", needs="theory_state"))).run(SPEC)
    rec = next(r for r in result.stages if r.name == "write")
    assert rec.status == "skipped" and "theory_state" in rec.reason
    events = read_jsonl(Path(result.session_dir) / "events.jsonl")
    assert any(e["kind"] == "stage" and e["name"] == "write" and e["status"] == "skipped" for e in events)
    assert events[0]["kind"] == "session_started" and events[-1]["kind"] == "session_stopped"


class PricedScripted(ScriptedBackend):
    """A scripted backend billed like Claude Sonnet, so the budget gate has something to count."""

    name = "priced-test"

    def model_for(self, tier):
        return "claude-sonnet-4-6"


async def test_budget_cap_stops_at_a_checkpoint_and_resume_continues() -> None:
    backend = PricedScripted(responder=lambda r: "x" * 400)
    stage = StepStage("theory", steps=10)
    orch = _orch(_stages(theory=stage), backend=backend)
    # each call's worst case is ~100 output tokens * $15/M ≈ $0.0015; allow about three calls
    with pytest.raises(BudgetExceededError) as info:
        await orch.run(SPEC.model_copy(update={"budget_usd": 0.005}))
    assert "resume" in info.value.user_message()
    session = next(Workspace(load_settings().eurekaclaw_dir).sessions())
    usage = read_json(session.file("usage.json"))
    assert usage["cost_usd"] <= 0.005
    meta = session.load_meta()
    assert meta.status == "budget_exceeded"
    steps_before = len(read_json(session.file("bus_extra.json"))["steps"])
    assert 0 < steps_before < 10
    pipeline = read_json(session.file("pipeline.json"))
    assert next(s for s in pipeline["stages"] if s["name"] == "theory")["status"] == "interrupted"

    resumed = await _orch(_stages(theory=StepStage("theory", steps=10)), backend=backend).resume(
        session, budget_usd=1.0
    )
    assert resumed.status == "partial"  # other stages absent in this test
    assert len(read_json(session.file("bus_extra.json"))["steps"]) == 10
    assert backend.calls and len(backend.calls) == 10  # no step was paid for twice


async def test_pause_request_from_another_process_checkpoints(isolated_home: Path) -> None:
    stage = StepStage("theory", steps=50, delay_s=0.05)
    orch = _orch(_stages(theory=stage))

    async def request_pause_soon() -> None:
        import asyncio

        for _ in range(200):
            await asyncio.sleep(0.05)
            sessions = list(Workspace(isolated_home).sessions())
            if sessions and (sessions[0].file("bus_extra.json")).exists():
                sessions[0].request_pause()
                return

    import asyncio

    pauser = asyncio.ensure_future(request_pause_soon())
    with pytest.raises(RunInterrupted) as info:
        await orch.run(SPEC)
    await pauser
    assert info.value.exit_code == 130
    session = next(Workspace(isolated_home).sessions())
    assert session.load_meta().status == "paused"
    assert not session.pause_requested()
    assert 0 < len(read_json(session.file("bus_extra.json"))["steps"]) < 50


def _driver(args: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(HERE / "driver.py"), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_sigkill_mid_run_then_resume_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    env_base = {**os.environ, "STEP_DELAY": "0.15"}
    # uninterrupted reference run
    ref_env = {**env_base, "EUREKACLAW_DIR": str(tmp_path / "ref"), "STEP_LOG": str(tmp_path / "ref.log")}
    ref = _driver(["run"], ref_env)
    out, errs = ref.communicate(timeout=120)
    assert ref.returncode == 0, errs
    ref_result = json.loads(out)
    ref_steps = read_json(Path(ref_result["session_dir"]) / "bus_extra.json")["steps"]

    env = {**env_base, "EUREKACLAW_DIR": str(tmp_path / "home"), "STEP_LOG": str(tmp_path / "run.log")}
    proc = _driver(["run"], env)
    deadline = time.monotonic() + 60
    session_dir = None
    while time.monotonic() < deadline:
        runs = list((tmp_path / "home" / "runs").glob("*/bus_extra.json"))
        if runs and len(read_json(runs[0]).get("steps", [])) >= 3:
            session_dir = runs[0].parent
            break
        time.sleep(0.05)
    assert session_dir is not None, "the run never reached step 3"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    steps_at_kill = len(read_json(session_dir / "bus_extra.json")["steps"])
    assert steps_at_kill < 8

    resumed = _driver(["resume", session_dir.name], env)
    out, errs = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, errs
    result = json.loads(out)
    assert result["status"] == ref_result["status"]
    assert [s["status"] for s in result["stages"]] == [s["status"] for s in ref_result["stages"]]
    assert read_json(session_dir / "bus_extra.json")["steps"] == ref_steps
    # the survey stage finished before the kill and was not run again
    assert (tmp_path / "run.stages").read_text().splitlines().count("survey") == 1
    # steps are never redone after their checkpoint: at most the one in flight repeats
    step_log = (tmp_path / "run.log").read_text().split()
    assert len(step_log) <= 8 + 1


class HopelessStage(CountingStage):
    async def run(self, ctx, spec, *, resume=False):
        from eurekaclaw.agents.stage import StageOutcome

        self.runs += 1
        return StageOutcome(status="failed", reason="none of the papers exists", retryable=False)


async def test_a_failure_that_cannot_improve_is_not_retried() -> None:
    stage = HopelessStage("survey")
    result = await _orch(_stages(survey=stage), stage_max_retries=3).run(SPEC)
    rec = next(r for r in result.stages if r.name == "survey")
    assert rec.status == "failed" and rec.attempts == 1 and stage.runs == 1


class WeakBackend(ScriptedBackend):
    def demonstration_profile(self):
        return {"theory_max_iterations": 1, "stage_max_retries": 0}


async def test_a_weak_backend_profile_applies_except_where_the_user_chose(monkeypatch) -> None:
    monkeypatch.setenv("STAGE_MAX_RETRIES", "3")
    orch = _orch(_stages(survey=CountingStage("survey")), backend=WeakBackend(responder=lambda r: "ok"))
    orch.prepare_backend()
    assert orch.settings.theory_max_iterations == 1
    assert orch.settings.stage_max_retries == 3
    assert orch.profile_overrides == {"theory_max_iterations": 1}


async def test_auto_gate_without_a_terminal_continues_after_a_failed_stage_and_says_so(monkeypatch) -> None:
    orch = _orch(
        _stages(theory=CountingStage("theory", fail_times=5), experiment=CountingStage("experiment")), gate_mode="auto"
    )
    monkeypatch.setattr(orch.ui, "can_ask", lambda: False)
    asked: list[str] = []
    lines: list[str] = []
    monkeypatch.setattr(orch.ui, "confirm", lambda question: asked.append(question) or False)
    monkeypatch.setattr(orch.ui, "line", lambda text, style="": lines.append(text))
    result = await orch.run(SPEC)
    assert asked == []  # nobody to ask: never waits
    assert any("gate auto: theory failed; no terminal to ask, continuing" in line for line in lines)
    assert {r.name: r.status for r in result.stages}["experiment"] == "completed"


async def test_auto_gate_on_a_terminal_asks_after_a_failed_stage(monkeypatch) -> None:
    orch = _orch(
        _stages(theory=CountingStage("theory", fail_times=5), experiment=CountingStage("experiment")), gate_mode="auto"
    )
    monkeypatch.setattr(orch.ui, "can_ask", lambda: True)
    asked: list[str] = []
    monkeypatch.setattr(orch.ui, "confirm", lambda question: asked.append(question) or True)
    await orch.run(SPEC)
    assert len(asked) == 1 and "theory failed" in asked[0]


async def test_human_gate_without_a_terminal_is_refused_before_a_session_exists(monkeypatch) -> None:
    from eurekaclaw.errors import BadInputError

    orch = _orch(_stages(write=CountingStage("write")), gate_mode="human")
    monkeypatch.setattr(orch.ui, "can_ask", lambda: False)
    with pytest.raises(BadInputError, match="--gate human needs a terminal"):
        await orch.run(SPEC)
    assert not list(orch.workspace.runs_dir.glob("*"))
