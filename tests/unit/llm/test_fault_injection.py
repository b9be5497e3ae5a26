"""The one retry layer over the real HTTP path: OpenAICompatBackend → httpx → a fault-injecting
server on 127.0.0.1 (tests/fault_server.py). Each fault kind alone, then 30% and 50% mixed rates:
calls complete, requests per call ≤ LLM_MAX_RETRIES + 1, and usage.json and llm_log.jsonl count
every attempt with its reason and wait. Waits are recorded, not slept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fault_server import FAULT_KINDS, FaultServer

from eurekaclaw.config import Settings
from eurekaclaw.errors import LLMAuthError, LLMFatalError, LLMRetryableError
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.openai_compat import OpenAICompatBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.store.files import read_jsonl

EXPECTED_REASON = {
    "http_429_seconds": "rate_limited",
    "http_429_ms": "rate_limited",
    "http_429_date": "rate_limited",
    "http_408": "http_408",
    "http_409": "http_409",
    "http_500": "http_500",
    "http_502": "http_502",
    "http_503": "http_503",
    "http_504": "http_504",
    "http_529": "overloaded",
    "timeout": "timeout",
    "reset": "connection",
    "non_json_200": "bad_body",
    "truncated_json_200": "bad_body",
    "error_in_200": "error_in_body",
    "no_choices_200": "no_choices",
}
RETRY_MAX_S = 30.0


class Sleeps(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(srv: FaultServer, tmp_path: Path, max_retries: int, total_s: float = 900.0) -> tuple[SessionLLM, Sleeps]:
    settings = Settings(
        openai_compat_base_url=srv.base_url,
        openai_compat_model="my-model",
        llm_timeout_s=2.0,
        openai_compat_api_key="sk-or-v1-abcdef0123456789abcdef",
    )
    sleeps = Sleeps()
    llm = SessionLLM(
        OpenAICompatBackend(settings),
        UsageLedger(tmp_path / "usage.json"),
        tmp_path / "llm_log.jsonl",
        max_retries=max_retries,
        retry_base_s=1.0,
        retry_max_s=RETRY_MAX_S,
        retry_total_s=total_s,
        sleep=sleeps,
    )
    return llm, sleeps


def ask(i: int = 0) -> LLMRequest:
    return LLMRequest(role="prover", messages=[Message(role="user", content=f"Prove lemma {i}.")], max_tokens=64)


def test_every_fault_kind_is_covered() -> None:
    assert set(EXPECTED_REASON) == set(FAULT_KINDS) and len(FAULT_KINDS) >= 14


@pytest.mark.parametrize("kind", FAULT_KINDS)
async def test_each_fault_kind_is_retried_once_and_recorded(kind: str, tmp_path: Path) -> None:
    with FaultServer(plan=[kind, None]) as srv:
        llm, sleeps = client(srv, tmp_path, max_retries=3)
        try:
            response = await llm.complete(ask())
        finally:
            await llm.backend.aclose()  # type: ignore[attr-defined]
    assert response.text == "ok"
    assert [k for _, k in srv.log] == [kind, "ok"]
    wait = {"http_429_seconds": 12.0, "http_429_ms": 1.5, "http_429_date": RETRY_MAX_S}.get(kind)
    assert len(sleeps) == 1 and (sleeps[0] == wait if wait else 0.5 <= sleeps[0] <= 1.0)
    usage = json.loads((tmp_path / "usage.json").read_text())
    assert usage["calls"] == 1 and usage["attempts"] == 2 and usage["failed_attempts"] == 1
    assert usage["retries_by_reason"] == {EXPECTED_REASON[kind]: 1}
    assert usage["retry_wait_s"] == pytest.approx(sleeps[0], abs=1e-3)
    lines = read_jsonl(tmp_path / "llm_log.jsonl")
    assert [line["attempt"] for line in lines] == [1, 2]
    assert lines[0]["retry_reason"] == EXPECTED_REASON[kind] and lines[0]["response"] is None
    assert lines[0]["retry_wait_s"] == pytest.approx(sleeps[0])
    if kind == "no_choices_200":  # tokens billed on the failed attempt are counted
        assert lines[0]["billed_usage"]["input_tokens"] == 90
        assert usage["total"]["input_tokens"] == 100 + 90
    raw = (tmp_path / "llm_log.jsonl").read_text()
    assert "sk-or-v1-abcdef" not in raw


@pytest.mark.parametrize(
    ("status", "error"), [(400, LLMFatalError), (401, LLMAuthError), (403, LLMAuthError), (404, LLMFatalError)]
)
async def test_definite_4xx_are_never_retried(status: int, error: type, tmp_path: Path) -> None:
    with FaultServer(plan=[f"http_{status}"]) as srv:
        llm, sleeps = client(srv, tmp_path, max_retries=5)
        with pytest.raises(error):
            await llm.complete(ask())
        await llm.backend.aclose()  # type: ignore[attr-defined]
    assert len(srv.log) == 1 and sleeps == []
    assert json.loads((tmp_path / "usage.json").read_text())["attempts"] == 1


async def test_attempts_and_total_wait_are_bounded(tmp_path: Path) -> None:
    with FaultServer(plan=["http_503"] * 50) as srv:
        llm, sleeps = client(srv, tmp_path, max_retries=3)
        with pytest.raises(LLMRetryableError) as info:
            await llm.complete(ask())
        await llm.backend.aclose()  # type: ignore[attr-defined]
    assert len(srv.log) == 4 and len(sleeps) == 3  # LLM_MAX_RETRIES + 1 requests
    assert "gave up after 4 attempts" in info.value.message
    # a server asking for two hours, again and again: each wait capped, the total bounded
    with FaultServer(plan=["http_429_date"] * 50) as srv:
        llm, sleeps = client(srv, tmp_path / "b", max_retries=10, total_s=100.0)
        with pytest.raises(LLMRetryableError):
            await llm.complete(ask())
        await llm.backend.aclose()  # type: ignore[attr-defined]
    assert sleeps == [RETRY_MAX_S] * 3 and len(srv.log) == 4


@pytest.mark.parametrize(("rate", "max_retries", "seed"), [(0.3, 6, 1), (0.5, 8, 2)])
async def test_mixed_fault_rates_complete_within_the_retry_bound(
    rate: float, max_retries: int, seed: int, tmp_path: Path
) -> None:
    calls = 40
    with FaultServer(rate=rate, seed=seed) as srv:
        llm, sleeps = client(srv, tmp_path, max_retries=max_retries)
        per_call = []
        for i in range(calls):
            before = len(srv.log)
            assert (await llm.complete(ask(i))).text == "ok"
            per_call.append(len(srv.log) - before)
        await llm.backend.aclose()  # type: ignore[attr-defined]
    assert max(per_call) <= max_retries + 1
    faults = sum(1 for _, k in srv.log if k != "ok")
    assert faults > 0.5 * rate * len(srv.log)  # the faults really happened
    usage = json.loads((tmp_path / "usage.json").read_text())
    assert usage["calls"] == calls and usage["attempts"] == len(srv.log) == sum(per_call)
    assert usage["failed_attempts"] == faults == len(sleeps)
    assert len(read_jsonl(tmp_path / "llm_log.jsonl")) == len(srv.log)
