"""Streaming end to end without a network: the scripted backend streams its reply in chunks,
the live display (progress.RunUI through WatchedBackend) shows the running call's tokens, the
token meter throttles its reports, and a cut stream is retried and recorded by the session
client like any retryable failure."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli_live_view import FakeClock, render_text

from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.streaming import TokenMeter, wants_stream, watching
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.orchestrator.progress import RunUI
from eurekaclaw.store.files import read_jsonl

PROOF = "By induction on n; the base case is immediate and the step applies the hypothesis. " * 30


def ask() -> LLMRequest:
    return LLMRequest(
        role="prover", stage="theory", lemma_id="lemma_3", messages=[Message(role="user", content="Prove lemma 3.")]
    )


async def no_sleep(seconds: float) -> None:
    return None


async def test_the_live_view_shows_the_running_calls_streamed_tokens(tmp_path: Path) -> None:
    clock = FakeClock()
    ui = RunUI(live=True, clock=clock)  # live mode without starting rich's thread: frames on demand
    ui.session_id = "s1"
    frames: list[str] = []
    shown = ui.call_tokens

    def tokens_then_frame(call_id: int, tokens: int) -> None:
        shown(call_id, tokens)
        clock.now += 1.0  # a second between reports
        frames.append(render_text(ui))

    ui.call_tokens = tokens_then_frame  # type: ignore[method-assign]
    backend = ScriptedBackend(default=PROOF, chunk_chars=4)
    llm = SessionLLM(ui.watch(backend), UsageLedger(tmp_path / "usage.json"), tmp_path / "llm_log.jsonl")
    response = await llm.complete(ask())
    assert response.text == PROOF
    total = -(-len(PROOF) // 4)  # 4 characters a token
    assert len(frames) == total + 1  # every chunk, then the last count once more at the end
    assert "⟳ model call: prover · lemma lemma_3 · theory · 12s · 12 tokens" in frames[11]
    assert "⟳ model call: prover · lemma lemma_3 · theory · 7m11s · 431 tokens" in frames[430]
    assert f"· {total:,} tokens" in frames[-1]
    assert "model call" not in render_text(ui)  # the call is over: its line is gone
    # the ledger and the log saw the whole reply, exactly as without streaming
    assert read_jsonl(tmp_path / "llm_log.jsonl")[0]["response"]["text"] == PROOF
    assert json.loads((tmp_path / "usage.json").read_text())["calls"] == 1


async def test_a_display_that_is_not_live_asks_for_no_stream(tmp_path: Path) -> None:
    ui = RunUI(live=False, quiet=True)
    seen: list[bool] = []

    def respond(request: LLMRequest) -> str:
        seen.append(wants_stream("auto"))
        return "done"

    backend = ScriptedBackend(responder=respond)
    await SessionLLM(ui.watch(backend), UsageLedger(None)).complete(ask())
    assert seen == [False]
    with watching(lambda n: None):
        assert wants_stream("auto") and not wants_stream("false")
    assert wants_stream("true") and not wants_stream("auto")


async def test_a_cut_scripted_stream_is_retried_and_recorded(tmp_path: Path) -> None:
    rules = [{"role": "prover", "reply": PROOF, "cut_stream_after": 3}]
    backend = ScriptedBackend(rules=rules, stream=True, chunk_chars=10)
    notices: list[str] = []
    llm = SessionLLM(
        backend,
        UsageLedger(tmp_path / "usage.json"),
        tmp_path / "llm_log.jsonl",
        on_retry=notices.append,
        sleep=no_sleep,
    )
    response = await llm.complete(ask())
    assert response.text == PROOF and len(backend.calls) == 2
    usage = json.loads((tmp_path / "usage.json").read_text())
    assert usage["retries_by_reason"] == {"stream_cut": 1} and usage["attempts"] == 2
    first = read_jsonl(tmp_path / "llm_log.jsonl")[0]
    assert first["retry_reason"] == "stream_cut" and first["billed_usage"]["output_tokens"] == 8  # 3 chunks of 10
    assert notices and "reply stream broke off" in notices[0]


def test_the_meter_reports_at_most_ten_times_a_second_and_always_the_last_count() -> None:
    clock = FakeClock()
    reports: list[int] = []
    meter = TokenMeter(reports.append, clock=clock)
    for _ in range(100):  # 100 chunks in 1 s
        meter.add("abcd")
        clock.now += 0.01
    meter.finish()
    assert 9 <= len(reports) <= 12 and reports[-1] == 100 and reports == sorted(reports)
    exact = TokenMeter(reports.append, clock=clock)
    exact.add("héllo wörld", tokens=3)
    assert exact.tokens == 3
