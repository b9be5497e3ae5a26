"""One retry policy: a call is retried by SessionLLM (LLM_MAX_RETRIES), and a stage whose call
SessionLLM gave up on is not run again, so a retryable failure costs 1 + LLM_MAX_RETRIES backend
calls, never that times 1 + STAGE_MAX_RETRIES."""

from __future__ import annotations

import sys
from pathlib import Path

from fake_stages import CountingStage, StepStage

from eurekaclaw.config import load_settings
from eurekaclaw.errors import LLMRetryableError
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.orchestrator.meta import MetaOrchestrator
from eurekaclaw.store.files import read_jsonl
from eurekaclaw.store.session import Workspace
from eurekaclaw.types.tasks import InputSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))

SPEC = InputSpec(mode="prove", statement="For all real x, x^2 >= 0")
NAMES = ("survey", "formalize", "theory", "experiment", "write", "evaluate", "learn")


def _overloaded(request):
    raise LLMRetryableError("server overloaded", status=529)


def _orch(backend: ScriptedBackend, **stages) -> MetaOrchestrator:
    settings = load_settings(llm_max_retries=2, llm_retry_base_s=0.0, stage_max_retries=3)
    return MetaOrchestrator(settings, backend=backend, stages={n: stages.get(n) for n in NAMES}, plugins={})


async def test_a_call_the_session_client_gave_up_on_is_not_repeated_by_a_stage_retry() -> None:
    backend = ScriptedBackend(responder=_overloaded)
    result = await _orch(backend, theory=StepStage("theory", steps=1)).run(SPEC)
    theory = next(r for r in result.stages if r.name == "theory")
    assert len(backend.calls) == 3  # 1 + LLM_MAX_RETRIES, not (1 + 2) * (1 + STAGE_MAX_RETRIES)
    assert theory.status == "failed" and theory.attempts == 1
    assert "server overloaded" in theory.reason
    session = Workspace(load_settings().eurekaclaw_dir).resolve(result.session_id)
    events = read_jsonl(session.file("events.jsonl"))
    assert not [e for e in events if e.get("kind") == "stage_retry"]


async def test_a_stage_that_broke_otherwise_is_still_retried() -> None:
    flaky = CountingStage("theory", fail_times=1)
    result = await _orch(ScriptedBackend(responder=lambda r: "ok"), theory=flaky).run(SPEC)
    theory = next(r for r in result.stages if r.name == "theory")
    assert theory.status == "completed" and theory.attempts == 2 and flaky.runs == 2
