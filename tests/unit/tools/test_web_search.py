"""The optional `web_search` tool: a Brave Search answer (tests/fixtures/web_search) served at the
httpx transport, the project's retry policy, the key kept out of results and errors, and who is
offered the tool (only with BRAVE_API_KEY, never offline); `doctor` says whether it is on."""

from __future__ import annotations

import json

import httpx
import pytest
from pydantic import SecretStr

from eurekaclaw.config import load_settings
from eurekaclaw.http_retry import RetryPolicy
from eurekaclaw.orchestrator.doctor import doctor_report
from eurekaclaw.orchestrator.session_setup import build_tools
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.tools.roles import role_tool_names
from eurekaclaw.tools.web_search import (
    BRAVE_URL,
    WebSearchError,
    WebSearchTool,
    register_web_search_tool,
)

KEY = "brave-test-key-0123456789"


@pytest.fixture
def recorded() -> bytes:
    from conftest import FIXTURES

    return (FIXTURES / "web_search" / "brave_web_search.json").read_bytes()


class Server:
    """Answers in order (the last repeats) and keeps every request."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer


def tool(server: Server, sleeps: list[float] | None = None) -> WebSearchTool:
    async def sleep(seconds: float) -> None:
        if sleeps is not None:
            sleeps.append(seconds)

    policy = RetryPolicy(
        max_retries=3, base_s=1.0, max_wait_s=30.0, max_total_s=60.0, jitter=False, cap_retry_after=False
    )
    return WebSearchTool(KEY, transport=httpx.MockTransport(server), policy=policy, sleep=sleep)


async def test_a_recorded_answer_becomes_clean_results(recorded) -> None:
    server = Server(httpx.Response(200, content=recorded, headers={"content-type": "application/json"}))
    out = await tool(server).call(query="UCB1  finite-time regret bound", count=5)
    request = server.requests[0]
    assert str(request.url).startswith(BRAVE_URL)
    assert request.url.params["q"] == "UCB1 finite-time regret bound" and request.url.params["count"] == "5"
    assert request.headers["X-Subscription-Token"] == KEY and request.headers["Accept"] == "application/json"
    titles = [r["title"] for r in out["results"]]
    assert titles == [
        "Finite-time Analysis of the Multiarmed Bandit Problem",
        "Regret Analysis of Stochastic and Nonstochastic Multi-armed Bandit Problems",
        "Bandit Algorithms (book)",
    ]  # the javascript: result is dropped
    first = out["results"][0]
    assert (
        first["snippet"].startswith("The UCB1 policy achieves logarithmic regret") and "&amp;" not in first["snippet"]
    )
    assert "& without prior knowledge" in first["snippet"] and "<strong>" not in json.dumps(out)
    assert first["url"] == "https://link.springer.com/article/10.1023/A:1013689704352" and first["age"] == "May 1, 2002"
    assert "leads, not sources" in out["note"]
    assert KEY not in json.dumps(out)
    two = await tool(Server(httpx.Response(200, content=recorded))).call(query="ucb", count=2)
    assert len(two["results"]) == 2


async def test_rate_limits_and_server_errors_follow_the_retry_policy(recorded) -> None:
    sleeps: list[float] = []
    server = Server(
        httpx.Response(429, headers={"Retry-After": "2"}), httpx.Response(503), httpx.Response(200, content=recorded)
    )
    out = await tool(server, sleeps).call(query="ucb")
    assert len(server.requests) == 3 and sleeps == [2.0, 2.0]  # Retry-After, then backoff 1·2^1
    assert out["results"]

    sleeps = []
    server = Server(httpx.Response(503))
    with pytest.raises(WebSearchError, match="HTTP 503; gave up after 4 attempt") as err:
        await tool(server, sleeps).call(query="ucb")
    assert len(server.requests) == 4 and KEY not in str(err.value)

    # a server that asks for a longer wait than the policy allows is given up on, not hammered
    server = Server(httpx.Response(429, headers={"Retry-After": "3600"}))
    with pytest.raises(WebSearchError, match="HTTP 429"):
        await tool(server).call(query="ucb")
    assert len(server.requests) == 1


async def test_connection_failures_are_retried_then_reported() -> None:
    server = Server(httpx.ConnectError("no route"))
    with pytest.raises(WebSearchError, match="unreachable \\(ConnectError\\); gave up after 4"):
        await tool(server).call(query="ucb")


async def test_a_refused_key_is_not_retried_and_not_shown() -> None:
    server = Server(
        httpx.Response(401, json={"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}})
    )
    registry = ToolRegistry()
    registry.register(tool(server))
    text, is_error = await registry.call("web_search", {"query": "ucb"})
    assert is_error and "refused the key (HTTP 401)" in text and "BRAVE_API_KEY" in text and KEY not in text
    assert len(server.requests) == 1


async def test_bad_arguments_never_reach_the_network() -> None:
    server = Server(httpx.Response(200, json={}))
    for args in ({"query": ""}, {"query": "x" * 401}, {"query": "ucb", "count": 50}):
        with pytest.raises(WebSearchError):
            await tool(server).call(**args)
    assert server.requests == []
    assert (await tool(server).call(query="ucb"))["results"] == []  # an answer without web results


def test_offered_to_survey_and_prover_only_with_a_key_and_online(monkeypatch) -> None:
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    monkeypatch.delenv("EUREKACLAW_OFFLINE", raising=False)
    registry = ToolRegistry()
    assert register_web_search_tool(registry, load_settings()) is False and registry.get("web_search") is None
    offline = load_settings(brave_api_key=SecretStr(KEY), eurekaclaw_offline=True)
    assert register_web_search_tool(registry, offline) is False
    registry = build_tools(load_settings(brave_api_key=SecretStr(KEY)), None, None)  # type: ignore[arg-type]
    assert registry.get("web_search") is not None
    assert role_tool_names(registry, "prover") == ["symbolic", "web_search"]
    assert role_tool_names(registry, "survey") == ["web_search"]
    assert role_tool_names(registry, "refiner") == ["symbolic"] and role_tool_names(registry, "verifier") == [
        "symbolic"
    ]


def test_doctor_shows_whether_web_search_is_configured(monkeypatch) -> None:
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    monkeypatch.delenv("EUREKACLAW_OFFLINE", raising=False)
    report = doctor_report()
    assert report["web_search"]["configured"] is False and "BRAVE_API_KEY" in report["web_search"]["detail"]
    monkeypatch.setenv("BRAVE_API_KEY", KEY)
    report = doctor_report()
    assert report["web_search"] == {
        "configured": True,
        "detail": "on (Brave Search): offered to the survey and the prover",
    }
    assert KEY not in json.dumps(report, default=str)
