"""SessionLLM: budget gate, ledger, llm_log.jsonl, outer retries, structured output, replay."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import anthropic
import pytest
from pydantic import BaseModel

from eurekaclaw.config import Settings
from eurekaclaw.errors import (
    BudgetExceededError,
    LLMAuthError,
    LLMFatalError,
    LLMOutputError,
    LLMRetryableError,
)
from eurekaclaw.llm.anthropic_backend import AnthropicBackend, sdk_httpx
from eurekaclaw.llm.context import current_lemma, current_stage
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.replay import ReplayBackend
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message, ModelTier, Usage
from eurekaclaw.store.files import read_jsonl

KEY = "sk-ant-test-9f8e7d6c5b4a3210zz"
SONNET = "claude-sonnet-4-6"  # $3 in / $15 out per million tokens


class Bound(BaseModel):
    lemma: str
    constant: float


class PricedScripted(ScriptedBackend):
    """Scripted replies priced like the anthropic backend, so the budget matters."""

    name = "anthropic"

    def model_for(self, tier: ModelTier) -> str:
        return SONNET


class Sleeps(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def ask(text: str = "Prove it.", **kw: Any) -> LLMRequest:
    return LLMRequest(role=kw.pop("role", "prover"), messages=[Message(role="user", content=text)], **kw)


def billed(text: str, input_tokens: int = 1000, output_tokens: int = 100) -> LLMResponse:
    return LLMResponse(text=text, usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens))


# --- budget -------------------------------------------------------------------------------------


async def test_budget_gate_refuses_worst_case_and_records_nothing(tmp_path: Path) -> None:
    backend = PricedScripted(default=billed("fine"))
    usage_path, log_path = tmp_path / "usage.json", tmp_path / "llm_log.jsonl"
    llm = SessionLLM(backend, UsageLedger(usage_path, budget_usd=0.01), log_path)
    # worst case of a 4096-token reply alone: 4096 * $15/M = $0.061 > $0.01
    with pytest.raises(BudgetExceededError) as info:
        await llm.complete(ask(max_tokens=4096))
    assert "resume with a higher --budget-usd" in info.value.user_message()
    assert backend.calls == []
    assert llm.ledger.calls == 0 and llm.ledger.cost == 0.0
    assert not usage_path.exists() and not log_path.exists()
    # the same prompt with a small max_tokens fits: before a reply, half of max_tokens is assumed
    await llm.complete(ask(max_tokens=200))
    assert llm.ledger.calls == 1 and len(backend.calls) == 1


async def test_budget_counts_what_was_spent(tmp_path: Path) -> None:
    # each call really costs 1000*3/M + 100*15/M = $0.0045; once the prover has replied, a call
    # is estimated at ~53 prompt tokens plus 1.5 x its mean reply (166 tokens) = $0.00265
    llm = SessionLLM(PricedScripted(default=billed("x")), UsageLedger(tmp_path / "usage.json", budget_usd=0.02))
    spent = 0
    with pytest.raises(BudgetExceededError):
        for _ in range(10):
            await llm.complete(ask(max_tokens=300))
            spent += 1
    assert spent == 4  # after 4 calls ($0.018) a 5th would likely reach $0.0207: refused
    assert llm.ledger.cost == pytest.approx(4 * 0.0045)
    assert llm.ledger.cost <= 0.02


async def test_concurrent_calls_overspend_by_at_most_one_call(tmp_path: Path) -> None:
    # Each call's estimate (~$0.0024) is far below its worst case (~$0.0047): calls run side by
    # side while the estimates fit, but never so many that, all at their worst, spending could
    # pass the budget by more than one call. Each really costs $0.0045.
    backend = PricedScripted(rules=[{"contains": "Prove", "reply": billed("slow"), "delay_s": 0.05}])
    llm = SessionLLM(backend, UsageLedger(None, budget_usd=0.009))
    results = await asyncio.gather(
        *(llm.complete(ask(f"Prove {i}", max_tokens=300)) for i in range(4)),
        return_exceptions=True,
    )
    done = sum(isinstance(r, LLMResponse) for r in results)
    assert done == 2 and backend.max_in_flight == 2
    assert sum(isinstance(r, BudgetExceededError) for r in results) == 2
    worst_one_call = (60 * 3 + 300 * 15) / 1e6
    assert llm.ledger.cost <= 0.009 + worst_one_call
    assert llm.ledger.reserved == 0.0 and llm.ledger.in_flight == 0


async def test_waiting_call_proceeds_when_the_first_costs_less_than_its_estimate() -> None:
    cheap = LLMResponse(text="cheap", usage=Usage(input_tokens=10, output_tokens=5))
    backend = PricedScripted(rules=[{"contains": "Prove", "reply": cheap, "delay_s": 0.05}])
    # one estimate (~$0.0024) fits, two do not: the second waits, then fits
    llm = SessionLLM(backend, UsageLedger(None, budget_usd=0.004))
    results = await asyncio.gather(
        llm.complete(ask("Prove A", max_tokens=300)), llm.complete(ask("Prove B", max_tokens=300))
    )
    assert [r.text for r in results] == ["cheap", "cheap"]
    assert backend.max_in_flight == 1  # serialised only because the budget is tight


# --- ledger and usage.json ---------------------------------------------------------------------


async def test_ledger_by_stage_role_lemma_and_usage_json(tmp_path: Path) -> None:
    path = tmp_path / "usage.json"
    llm = SessionLLM(PricedScripted(default=billed("x")), UsageLedger(path, budget_usd=5.0))
    stage = current_stage.set("theory")
    try:
        lemma = current_lemma.set("L1")
        await llm.complete(ask(role="prover"))
        await llm.complete(ask(role="verifier"))
        current_lemma.reset(lemma)
        await llm.complete(ask(role="prover"))
    finally:
        current_stage.reset(stage)
    await llm.complete(ask(role="surveyor", stage="survey"))
    data = json.loads(path.read_text())
    assert data["calls"] == 4
    assert data["cost_usd"] == pytest.approx(4 * 0.0045)
    assert data["budget_usd"] == 5.0 and data["cost_known"] is True
    assert data["total"]["input_tokens"] == 4000 and data["total"]["output_tokens"] == 400
    assert {k: v["calls"] for k, v in data["by_stage"].items()} == {"theory": 3, "survey": 1}
    assert {k: v["calls"] for k, v in data["by_role"].items()} == {
        "prover": 2,
        "verifier": 1,
        "surveyor": 1,
    }
    assert {k: v["calls"] for k, v in data["by_lemma"].items()} == {"L1": 2}
    assert data["by_lemma"]["L1"]["cost_usd"] == pytest.approx(0.009)
    # a resumed session continues from the saved totals
    resumed = UsageLedger(path, budget_usd=5.0)
    assert resumed.calls == 4 and resumed.cost == pytest.approx(4 * 0.0045)


async def test_unknown_model_marks_cost_unknown(tmp_path: Path) -> None:
    class Unpriced(PricedScripted):
        def model_for(self, tier: ModelTier) -> str:
            return "some-unknown-model"

    llm = SessionLLM(Unpriced(default="x"), UsageLedger(tmp_path / "usage.json"))
    await llm.complete(ask())
    data = json.loads((tmp_path / "usage.json").read_text())
    assert data["cost_known"] is False and data["cost_usd"] is None
    assert data["unpriced_models"] == ["some-unknown-model"]
    assert llm.ledger.cost_text() == "unknown"


# --- llm_log.jsonl ---------------------------------------------------------------------------------


def anthropic_backend(handler: Any) -> AnthropicBackend:
    hx = sdk_httpx()
    client = anthropic.DefaultAsyncHttpxClient(transport=hx.MockTransport(handler))
    return AnthropicBackend(Settings(anthropic_api_key=KEY, llm_max_retries=0), http_client=client)


async def test_llm_log_records_calls_and_never_the_api_key(tmp_path: Path) -> None:
    hx = sdk_httpx()
    replies = [
        hx.Response(
            200,
            json={
                "id": "m1",
                "type": "message",
                "role": "assistant",
                "model": SONNET,
                "content": [{"type": "text", "text": "A proof."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 12, "output_tokens": 3},
            },
        ),
        hx.Response(
            401,
            json={
                "type": "error",
                "error": {"type": "authentication_error", "message": f"invalid key {KEY}"},
            },
        ),
    ]
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return replies.pop(0)

    log_path = tmp_path / "llm_log.jsonl"
    llm = SessionLLM(anthropic_backend(handler), UsageLedger(None), log_path)
    resp = await llm.complete(ask("Prove it.", system_stable="Role text."))
    assert resp.text == "A proof."
    with pytest.raises(LLMAuthError):
        await llm.complete(ask(f"my key is {KEY}, prove it"))
    assert KEY in seen[0].headers.get("authorization", "") + seen[0].headers.get("x-api-key", "")
    raw = log_path.read_text()
    assert KEY not in raw
    entries = read_jsonl(log_path)
    assert [e["seq"] for e in entries] == [1, 2]
    assert entries[0]["request"]["system_stable"] == "Role text."
    assert entries[0]["request"]["model"] == SONNET
    assert entries[0]["response"]["text"] == "A proof."
    assert entries[0]["fingerprint"] == ask("Prove it.", system_stable="Role text.").fingerprint()
    assert entries[1]["response"] is None and entries[1]["error"].startswith("LLMAuthError")


# --- outer retries ----------------------------------------------------------------------------------


async def test_outer_retry_on_retryable_error_with_injected_sleep(tmp_path: Path) -> None:
    failures = [
        LLMRetryableError("overloaded", status=529, retry_after=42.0),
        LLMRetryableError("reset"),
    ]

    def respond(request: LLMRequest) -> Any:
        if failures:
            raise failures.pop(0)
        return "finally"

    backend = ScriptedBackend(responder=respond)
    sleeps = Sleeps()
    log_path = tmp_path / "llm_log.jsonl"
    llm = SessionLLM(backend, UsageLedger(None), log_path, retry_base_s=10.0, retry_max_s=300.0, sleep=sleeps)
    resp = await llm.complete(ask())
    assert resp.text == "finally"
    assert len(backend.calls) == 3
    assert sleeps[0] >= 42.0  # the server's Retry-After wins over a shorter backoff
    assert 10.0 <= sleeps[1] <= 20.0  # second attempt: base * 2, jittered down to at most half
    assert llm.ledger.calls == 1
    assert [e["response"] is None for e in read_jsonl(log_path)] == [True, True, False]


async def test_outer_retries_give_up_and_fatal_errors_are_not_retried() -> None:
    def busy(request: LLMRequest) -> Any:
        raise LLMRetryableError("busy", status=429)

    sleeps = Sleeps()
    backend = ScriptedBackend(responder=busy)
    with pytest.raises(LLMRetryableError):
        await SessionLLM(backend, UsageLedger(None), max_retries=2, sleep=sleeps).complete(ask())
    assert len(backend.calls) == 3 and len(sleeps) == 2

    def bad(request: LLMRequest) -> Any:
        raise LLMFatalError("400 invalid", status=400)

    backend = ScriptedBackend(responder=bad)
    with pytest.raises(LLMFatalError):
        await SessionLLM(backend, UsageLedger(None), sleep=sleeps).complete(ask())
    assert len(backend.calls) == 1


# --- structured output ------------------------------------------------------------------------------


async def test_structured_repairs_once_then_raises() -> None:
    backend = ScriptedBackend(rules=[{"output": "Bound", "replies": [{"lemma": "L1"}, {"constant": 1}]}])
    llm = SessionLLM(backend, UsageLedger(None))
    with pytest.raises(LLMOutputError) as info:
        await llm.structured(ask(), Bound)
    assert info.value.kind == "schema"
    assert len(backend.calls) == 2
    assert "constant" in backend.calls[1].messages[-1].text()

    ok = ScriptedBackend(rules=[{"output": "Bound", "replies": ["not json at all", '{"lemma": "L", "constant": 2}']}])
    assert await SessionLLM(ok, UsageLedger(None)).structured(ask(), Bound) == Bound(lemma="L", constant=2)


class Gap(BaseModel):
    gap_analysis: str
    open_questions: list[str] = []


GAP_SYSTEM = 'Reply with {"gap_analysis": "<a few paragraphs>", "open_questions": ["<precise question>", ...]}.'


async def test_a_reply_that_copies_the_prompts_placeholders_is_repaired_or_refused() -> None:
    echo = {"gap_analysis": "<a few paragraphs>", "open_questions": ["<precise question>"]}
    real = {
        "gap_analysis": "Nothing bounds the regret of UCB-V under heavy tails.",
        "open_questions": ["Does UCB-V keep log T regret with infinite variance?"],
    }
    request = LLMRequest(role="survey", system_stable=GAP_SYSTEM, messages=[Message(role="user", content="gap?")])
    repaired = ScriptedBackend(rules=[{"output": "Gap", "replies": [echo, real]}])
    assert (await SessionLLM(repaired, UsageLedger(None)).structured(request, Gap)).gap_analysis == real["gap_analysis"]
    shown = repaired.calls[1].messages[-1].text()
    assert "placeholder" in shown and "gap_analysis = '<a few paragraphs>'" in shown
    assert "open_questions[0]" in shown

    stubborn = ScriptedBackend(rules=[{"output": "Gap", "replies": [echo, echo]}])
    with pytest.raises(LLMOutputError) as info:
        await SessionLLM(stubborn, UsageLedger(None)).structured(request, Gap)
    assert info.value.kind == "schema"
    # an angle-bracketed answer the prompt did not offer as a placeholder is an answer
    other = ScriptedBackend(rules=[{"output": "Gap", "reply": {"gap_analysis": "<x, y>", "open_questions": []}}])
    assert (await SessionLLM(other, UsageLedger(None)).structured(request, Gap)).gap_analysis == "<x, y>"


# --- replay -------------------------------------------------------------------------------------------


async def test_replay_reproduces_a_scripted_run(tmp_path: Path) -> None:
    log_path = tmp_path / "llm_log.jsonl"
    script = ScriptedBackend(
        rules=[
            {"contains": "twin", "replies": ["first twin", "second twin"], "delay_s": 0.02},
            {"output": "Bound", "reply": {"lemma": "L9", "constant": 9.5}},
            {"role": "writer", "reply": "The paper."},
        ]
    )
    recorded = SessionLLM(script, UsageLedger(None), log_path)

    async def run(llm: SessionLLM) -> tuple[set[str], Bound, str]:
        twins = await asyncio.gather(llm.complete(ask("twin request")), llm.complete(ask("twin request")))
        bound = await llm.structured(ask("bound please"), Bound)
        paper = await llm.complete(ask("write", role="writer"))
        return {t.text for t in twins}, bound, paper.text

    original = await run(recorded)
    assert original == (
        {"first twin", "second twin"},
        Bound(lemma="L9", constant=9.5),
        "The paper.",
    )

    replay = ReplayBackend(log_path)
    assert replay.model_for("main") == "scripted-main"
    again = await run(SessionLLM(replay, UsageLedger(None)))
    assert again == original
    with pytest.raises(LLMFatalError, match="replay diverged"):
        await replay.complete(ask("something never asked"))
    with pytest.raises(LLMFatalError, match="replay diverged"):
        await replay.complete(ask("twin request"))  # both recorded twins were used up
