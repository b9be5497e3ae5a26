"""The budget fails closed: prices from the table or settings, unpriced models need a token cap
(or the run does not start), the configured model is priced (not the echoed name), unknown cost
is shown as unknown, and reservations are realistic while overspend stays within one call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eurekaclaw.config import Settings
from eurekaclaw.errors import BudgetExceededError, MissingConfigError
from eurekaclaw.llm.ledger import UsageLedger, check_budget_enforceable
from eurekaclaw.llm.prices import Price, settings_price
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message, ModelTier, Usage

SONNET = "claude-sonnet-4-6"


class Named(ScriptedBackend):
    """A scripted backend that pretends to be a paid one serving `model`."""

    def __init__(self, model: str, name: str = "openai_compat", **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.name = name
        self._model = model

    def model_for(self, tier: ModelTier) -> str:
        return self._model


def ask(text: str = "Prove it.", max_tokens: int = 300, role: str = "prover") -> LLMRequest:
    return LLMRequest(role=role, messages=[Message(role="user", content=text)], max_tokens=max_tokens)


def reply(model: str = "", inp: int = 1000, out: int = 100) -> LLMResponse:
    return LLMResponse(text="x", usage=Usage(input_tokens=inp, output_tokens=out), model=model)


def test_settings_price_needs_both_and_wins_over_the_table() -> None:
    assert settings_price(Settings()) is None
    assert settings_price(Settings(llm_price_input_per_m=1.0)) is None
    price = settings_price(Settings(llm_price_input_per_m=0.5, llm_price_output_per_m=2.0))
    assert price == Price(0.5, 2.0, 0.625, 0.5)
    ledger = UsageLedger(None, price_override=price)
    assert ledger.price("my-vllm-model", "openai_compat") == price
    assert ledger.price(SONNET, "anthropic") == price
    assert ledger.price("anything", "local") == Price(0, 0, 0, 0)


async def test_priced_by_settings_the_budget_holds(tmp_path: Path) -> None:
    price = Price(1.0, 10.0, 1.25, 1.0)  # a call costs 1000/M + 100*10/M = $0.002
    ledger = UsageLedger(tmp_path / "usage.json", budget_usd=0.01, price_override=price)
    llm = SessionLLM(Named("qwen2.5-72b", default=reply()), ledger)
    with pytest.raises(BudgetExceededError):
        for _ in range(20):
            await llm.complete(ask())
    assert ledger.cost_known and ledger.calls >= 4
    assert ledger.cost <= 0.01 + 0.0031  # at most one call over (worst case of one call)


async def test_unpriced_model_with_a_dollar_budget_refuses_the_first_call(tmp_path: Path) -> None:
    backend = Named("my-vllm-model", default=reply())
    llm = SessionLLM(backend, UsageLedger(tmp_path / "usage.json", budget_usd=0.01))
    with pytest.raises(BudgetExceededError) as info:
        await llm.complete(ask())
    assert "no known price" in info.value.message
    assert "LLM_PRICE_INPUT_PER_M" in (info.value.hint or "")
    assert backend.calls == []


def test_preflight_names_what_to_set() -> None:
    unpriced = Named("my-vllm-model")
    with pytest.raises(MissingConfigError) as info:
        check_budget_enforceable(0.01, None, [unpriced, None])
    line = info.value.user_message()
    assert "\n" not in line and info.value.exit_code == 3
    assert "openai_compat:my-vllm-model" in line
    assert "LLM_PRICE_INPUT_PER_M" in line and "--budget-tokens" in line
    # a token cap, a settings price, no budget, or a free backend: fine
    check_budget_enforceable(0.01, 10_000, [unpriced])
    check_budget_enforceable(0.01, None, [unpriced], Price(1, 1, 1, 1))
    check_budget_enforceable(None, None, [unpriced])
    check_budget_enforceable(0.01, None, [Named("tiny", name="local"), Named(SONNET, name="anthropic")])
    # the review model counts too
    with pytest.raises(MissingConfigError):
        check_budget_enforceable(0.01, None, [Named(SONNET, name="anthropic"), unpriced])


async def test_token_budget_caps_an_unpriced_model(tmp_path: Path) -> None:
    ledger = UsageLedger(tmp_path / "usage.json", budget_usd=0.01, budget_tokens=5000)
    llm = SessionLLM(Named("my-vllm-model", default=reply()), ledger)
    with pytest.raises(BudgetExceededError) as info:
        for _ in range(20):
            await llm.complete(ask())
    assert "--budget-tokens" in (info.value.hint or "")
    used = ledger.total.input_tokens + ledger.total.output_tokens
    assert used <= 5000 + 1100  # at most one call over
    data = json.loads((tmp_path / "usage.json").read_text())
    assert data["cost_usd"] is None and data["cost_known"] is False and data["budget_tokens"] == 5000


async def test_priced_by_the_configured_model_not_the_echoed_name(tmp_path: Path) -> None:
    # the server answers as a cheap, unknown model; the session asked for Sonnet: Sonnet prices
    llm = SessionLLM(
        Named(SONNET, name="anthropic", default=reply(model="cheap-echo")),
        UsageLedger(tmp_path / "usage.json", budget_usd=1.0),
    )
    await llm.complete(ask())
    assert llm.ledger.cost == pytest.approx(0.0045) and llm.ledger.cost_known
    # and an unknown configured model stays unknown even when the server echoes a priced name
    llm2 = SessionLLM(Named("my-vllm-model", default=reply(model=SONNET)), UsageLedger(None))
    await llm2.complete(ask())
    assert not llm2.ledger.cost_known and llm2.ledger.cost_text() == "unknown"


async def test_realistic_reservation_a_cheap_run_needs_no_fivefold_budget() -> None:
    # replies of 100 tokens under max_tokens=4096: the first call is estimated at half of
    # max_tokens, later ones at 1.5x the mean reply, so a ~$0.0135 run fits a $0.04 budget
    # (the old worst-case reservation needed $0.062 for the first call alone)
    llm = SessionLLM(Named(SONNET, name="anthropic", default=reply()), UsageLedger(None, budget_usd=0.04))
    for _ in range(3):
        await llm.complete(ask(max_tokens=4096))
    assert llm.ledger.calls == 3
    assert llm.ledger.estimate(ask(max_tokens=4096))[0].output_tokens == 166


async def test_overspend_at_most_one_call_when_replies_exceed_the_estimate() -> None:
    # the model writes far more than its history suggests: still at most one call over
    seq = [reply(out=10)] + [reply(out=2000)] * 20
    backend = Named(SONNET, name="anthropic", default=reply(out=2000))
    backend_calls = iter(seq)

    async def complete(request: LLMRequest) -> LLMResponse:
        return next(backend_calls)

    backend.complete = complete  # type: ignore[method-assign]
    llm = SessionLLM(backend, UsageLedger(None, budget_usd=0.05))
    with pytest.raises(BudgetExceededError):
        for _ in range(20):
            await llm.complete(ask(max_tokens=2000))
    worst_one = (60 * 3 + 2000 * 15) / 1e6
    assert llm.ledger.cost <= 0.05 + worst_one


async def test_failed_attempts_and_unknown_cost_in_usage_json(tmp_path: Path) -> None:
    ledger = UsageLedger(tmp_path / "usage.json")
    req = ask()
    ledger.record_failed_attempt(req, None, "m", "openai_compat", reason="http_503", wait_s=2.0)
    ledger.record_failed_attempt(req, Usage(input_tokens=10), SONNET, "anthropic", reason="timeout", wait_s=1.0)
    ledger.record(req, Usage(input_tokens=5, output_tokens=5), SONNET, "anthropic")
    data = json.loads((tmp_path / "usage.json").read_text())
    assert data["calls"] == 1 and data["attempts"] == 3 and data["failed_attempts"] == 2
    assert data["retry_wait_s"] == 3.0 and data["retries_by_reason"] == {"http_503": 1, "timeout": 1}
    assert data["cost_known"] is True  # a failed attempt that billed nothing costs nothing
    assert data["by_role"]["prover"] == {**data["by_role"]["prover"], "calls": 1, "attempts": 3}


def test_cli_budget_without_price_exits_3_before_any_session(tmp_path: Path) -> None:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_", "EUREKACLAW_"))
    }
    env.update(
        {
            "EUREKACLAW_DIR": str(tmp_path),
            "COLUMNS": "200",
            "NO_COLOR": "1",
            "OPENAI_COMPAT_BASE_URL": "http://127.0.0.1:9/v1",
            "OPENAI_COMPAT_MODEL": "my-vllm-model",
        }
    )
    proc = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "prove", "x >= 0 for x >= 0", "--budget-usd", "0.01"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and "LLM_PRICE_INPUT_PER_M" in lines[0]
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_sessions_lists_unknown_cost_as_unknown(tmp_path: Path) -> None:
    from eurekaclaw.store.session import Workspace
    from eurekaclaw.types.tasks import SessionMeta

    ws = Workspace(tmp_path)
    unknown, known = ws.new_session(), ws.new_session()
    for session, cost_known in ((unknown, False), (known, True)):
        session.save_meta(
            SessionMeta(
                session_id=session.session_id,
                mode="prove",
                statement=session.session_id,
                status="completed",
                cost_usd=0.0125,
            )
        )
        UsageLedger(session.file("usage.json")).save()
        data = json.loads(session.file("usage.json").read_text())
        data["cost_known"] = cost_known
        session.file("usage.json").write_text(json.dumps(data))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_"))}
    env.update({"EUREKACLAW_DIR": str(tmp_path), "COLUMNS": "250", "NO_COLOR": "1"})
    proc = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "sessions"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {ln.split("│")[1].strip(): ln for ln in proc.stdout.splitlines() if ln.count("│") > 3}
    assert "unknown" in rows[unknown.session_id] and "$0.0125" not in rows[unknown.session_id]
    assert "$0.0125" in rows[known.session_id]
    listed = json.loads(
        subprocess.run(
            [sys.executable, "-m", "eurekaclaw", "sessions", "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        ).stdout
    )
    by_id = {row["session_id"]: row for row in listed}
    assert by_id[unknown.session_id]["cost_usd"] is None and by_id[known.session_id]["cost_usd"] == 0.0125


def test_the_live_view_says_cost_unknown_instead_of_zero_dollars() -> None:
    from rich.console import Console

    from eurekaclaw.orchestrator.progress import RunUI

    ui = RunUI(live=False, quiet=True)
    ui.start("s1", "prove")
    console = Console(width=120, record=True)
    ui.usage(1200, None)
    console.print(ui._render())
    ui.usage(1200, 0.25)
    console.print(ui._render())
    ui.stop()
    text = console.export_text()
    assert "cost unknown" in text and "$0.0000" not in text and "$0.2500" in text
