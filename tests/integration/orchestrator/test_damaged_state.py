"""Damaged session files never turn into success: a damaged theory_state.json re-runs Formalize
and Theory, a damaged usage.json is rebuilt from llm_log.jsonl (spending is never reset), a damaged
session.json is rebuilt from the other files (the session stays listed and resumable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.config import load_settings
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message, ModelTier, Usage
from eurekaclaw.orchestrator.meta import MetaOrchestrator
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.types.artifacts import TheoryState
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="For all real x, x^2 >= 0")


class Formalize(Stage):
    name = "formalize"
    produces = ("theory_state",)

    def __init__(self) -> None:
        self.runs = 0

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        self.runs += 1
        ctx.bus.put_theory_state(TheoryState(informal_statement=spec.statement, status="in_progress"))
        return StageOutcome(status="completed")


class Theory(Stage):
    name = "theory"
    produces = ("theory_state",)

    def __init__(self) -> None:
        self.runs = 0

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        self.runs += 1
        state = ctx.bus.get_theory_state()
        if state is None:
            return StageOutcome(status="failed", reason="no theory state")
        await ctx.llm.complete(LLMRequest(role="prover", messages=[Message(role="user", content="prove")]))
        state.status = "proved"
        ctx.bus.put_theory_state(state)
        return StageOutcome(status="completed")


def stages(formalize: Stage, theory: Stage) -> dict[str, Stage | None]:
    out: dict[str, Stage | None] = {n: None for n in ("survey", "experiment", "write", "evaluate", "learn")}
    out.update(formalize=formalize, theory=theory)
    return out


def orch(st: dict[str, Stage | None]) -> MetaOrchestrator:
    return MetaOrchestrator(load_settings(), backend=ScriptedBackend(responder=lambda r: "ok"), stages=st, plugins={})


async def test_damaged_theory_state_reruns_formalize_and_theory() -> None:
    f, t = Formalize(), Theory()
    first = await orch(stages(f, t)).run(SPEC)
    session = SessionDir(Path(first.session_dir))
    assert first.theory_status == "proved"
    session.file("theory_state.json").write_text('{"informal_statement": "x", "status": ')  # torn
    f2, t2 = Formalize(), Theory()
    resumed = await orch(stages(f2, t2)).resume(session)
    assert f2.runs == 1 and t2.runs == 1
    assert resumed.theory_status == "proved"
    assert any(session.path.glob("theory_state.json.corrupt-*"))  # kept aside, never overwritten
    assert any(e["kind"] == "damaged_state" for e in session.events())


async def test_theory_state_lost_mid_run_is_never_completed() -> None:
    class Losing(Theory):
        async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
            # what a crash between a damaged write and a reload leaves behind
            path = ctx.session.file("theory_state.json")
            path.rename(path.with_name("theory_state.json.corrupt-20260101T000000Z"))
            ctx.bus._data.pop("theory_state", None)
            return StageOutcome(status="completed")

    result = await orch(stages(Formalize(), Losing())).run(SPEC)
    assert result.status == "failed" and "resume" in result.status_reason


async def test_damaged_usage_json_is_rebuilt_from_the_log_not_reset(tmp_path: Path) -> None:
    class Sonnet(ScriptedBackend):
        name = "anthropic"

        def model_for(self, tier: ModelTier) -> str:
            return "claude-sonnet-4-6"

    usage, log = tmp_path / "usage.json", tmp_path / "llm_log.jsonl"
    llm = SessionLLM(
        Sonnet(default=LLMResponse(text="x", usage=Usage(input_tokens=1000, output_tokens=100))),
        UsageLedger(usage, budget_usd=1.0),
        log,
    )
    for _ in range(3):
        await llm.complete(LLMRequest(role="prover", stage="theory", messages=[Message(role="user", content="p")]))
    before = json.loads(usage.read_text())
    usage.write_text("{ not json")
    rebuilt = UsageLedger(usage, budget_usd=1.0)
    assert rebuilt.calls == 3 and rebuilt.cost == pytest.approx(before["cost_usd"]) and rebuilt.cost_known
    assert rebuilt.by_stage["theory"]["calls"] == 3 and rebuilt.rebuilt_from
    assert json.loads(usage.read_text())["calls"] == 3  # written back
    assert list(tmp_path.glob("usage.json.corrupt-*"))
    usage.unlink()  # a missing file is rebuilt the same way
    assert UsageLedger(usage).cost == pytest.approx(before["cost_usd"])


async def test_damaged_session_json_is_rebuilt_listed_and_resumable(isolated_home: Path) -> None:
    f, t = Formalize(), Theory()
    first = await orch(stages(f, t)).run(SPEC)
    session = SessionDir(Path(first.session_dir))
    session.file("session.json").write_text("\x00\x01garbage")
    ws = Workspace(isolated_home)
    listed = [s.session_id for s in ws.sessions()]
    assert session.session_id in listed
    meta = ws.resolve(session.session_id[:8]).load_meta()
    assert meta is not None and meta.mode == "prove" and meta.statement == SPEC.statement
    assert meta.status == first.status and meta.theory_status == "proved"
    assert json.loads(session.file("session.json").read_text())["session_id"] == session.session_id
    resumed = await orch(stages(Formalize(), Theory())).resume(session)
    assert resumed.status == first.status and resumed.theory_status == "proved"


async def test_session_json_gone_entirely_still_listed(isolated_home: Path) -> None:
    first = await orch(stages(Formalize(), Theory())).run(SPEC)
    session = SessionDir(Path(first.session_dir))
    session.file("session.json").unlink()
    assert session.session_id in [s.session_id for s in Workspace(isolated_home).sessions()]
    assert session.load_meta() is not None
