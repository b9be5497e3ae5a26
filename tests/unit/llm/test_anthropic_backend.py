"""The anthropic backend against the real SDK, with HTTP served by a MockTransport."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from pydantic import BaseModel

from eurekaclaw.config import Settings
from eurekaclaw.errors import LLMAuthError, LLMFatalError, LLMOutputError, LLMRetryableError
from eurekaclaw.llm.anthropic_backend import AnthropicBackend, sdk_httpx
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import (
    LLMRequest,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)

KEY = "sk-ant-test-0123456789abcdef"
hx = sdk_httpx()


class Bound(BaseModel):
    lemma: str
    constant: float


class Server:
    """Answers queued (status, body, headers) in order and keeps every request it saw."""

    def __init__(self, *replies: tuple[int, Any, dict[str, str]] | dict[str, Any]) -> None:
        self.replies = list(replies)
        self.requests: list[Any] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, dict):
            return hx.Response(200, json=reply)
        status, body, headers = reply
        return hx.Response(status, json=body, headers=headers)

    def body(self, i: int = -1) -> dict[str, Any]:
        return json.loads(self.requests[i].content)


def message(content: list[dict[str, Any]], stop: str = "end_turn", **usage: int) -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 20, **usage},
    }


def error(status: int, kind: str, text: str, headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    return status, {"type": "error", "error": {"type": kind, "message": text}}, headers or {}


def backend(server: Server, retries: int = 0, **settings: Any) -> AnthropicBackend:
    s = Settings(anthropic_api_key=KEY, llm_max_retries=retries, **settings)
    client = anthropic.DefaultAsyncHttpxClient(transport=hx.MockTransport(server))
    return AnthropicBackend(s, http_client=client)


def simple(**kw: Any) -> LLMRequest:
    return LLMRequest(role="prover", messages=[Message(role="user", content="Prove it.")], **kw)


async def test_request_body_system_cache_control_tools_and_messages() -> None:
    server = Server(message([{"type": "text", "text": "Done."}]))
    req = LLMRequest(
        role="prover",
        system_stable="You are a careful prover.",
        system_dynamic="Memories: none.",
        messages=[
            Message(role="user", content="Bound the regret."),
            Message(
                role="assistant",
                content=[
                    TextBlock(text="Let me check."),
                    ToolUseBlock(id="toolu_1", name="sympy_eval", input={"expr": "1+1"}),
                ],
            ),
            Message(
                role="user",
                content=[ToolResultBlock(tool_use_id="toolu_1", content="2", is_error=True)],
            ),
        ],
        tools=[ToolSpec(name="sympy_eval", description="Evaluate", input_schema={"type": "object"})],
        temperature=0.2,
        max_tokens=777,
    )
    b = backend(server)
    resp = await b.complete(req)
    body = server.body()
    assert resp.text == "Done."
    assert body["model"] == "claude-sonnet-4-6"
    assert body["max_tokens"] == 777
    # the API version of SDK 2.x answers 400 to any sampling parameter; older SDKs send it
    assert body.get("temperature") == (0.2 if b.sends_temperature else None)
    assert body["system"] == [
        {
            "type": "text",
            "text": "You are a careful prover.",
            "cache_control": {"type": "ephemeral"},
        },
        {"type": "text", "text": "Memories: none."},
    ]
    assert body["tools"] == [{"name": "sympy_eval", "description": "Evaluate", "input_schema": {"type": "object"}}]
    assert "tool_choice" not in body
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "sympy_eval", "input": {"expr": "1+1"}},
    ]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "2", "is_error": True}
    ]
    sent = server.requests[0].headers
    assert KEY in (sent.get("x-api-key"), sent.get("authorization", "").removeprefix("Bearer "))


async def test_empty_system_parts_are_omitted_and_fast_tier_uses_fast_model() -> None:
    server = Server(message([{"type": "text", "text": "ok"}]))
    b = backend(server, eurekaclaw_fast_model="claude-haiku-4-5")
    await b.complete(simple(system_dynamic="only dynamic", tier="fast"))
    body = server.body()
    assert body["model"] == "claude-haiku-4-5"
    assert body["system"] == [{"type": "text", "text": "only dynamic"}]
    await b.complete(simple())
    assert "system" not in server.body()
    assert b.model_for("main") == "claude-sonnet-4-6"


async def test_success_usage_includes_cache_tokens() -> None:
    server = Server(
        message(
            [{"type": "text", "text": "Part one. "}, {"type": "text", "text": "Part two."}],
            cache_creation_input_tokens=300,
            cache_read_input_tokens=1200,
        )
    )
    resp = await backend(server).complete(simple())
    assert resp.text == "Part one. Part two."
    assert resp.stop_reason == "end_turn"
    assert resp.model == "claude-sonnet-4-6"
    assert (resp.usage.input_tokens, resp.usage.output_tokens) == (100, 20)
    assert (resp.usage.cache_write_tokens, resp.usage.cache_read_tokens) == (300, 1200)


async def test_structured_output_is_a_forced_tool_call() -> None:
    server = Server(
        message(
            [
                {
                    "type": "tool_use",
                    "id": "toolu_9",
                    "name": "submit_Bound",
                    "input": {"lemma": "L1", "constant": 2.5},
                }
            ],
            stop="tool_use",
        )
    )
    resp = await backend(server).complete(simple(output=Bound))
    body = server.body()
    assert body["tool_choice"] == {"type": "tool", "name": "submit_Bound"}
    assert body["tools"][-1]["name"] == "submit_Bound"
    assert body["tools"][-1]["input_schema"] == Bound.model_json_schema()
    assert resp.structured == {"lemma": "L1", "constant": 2.5}
    assert resp.tool_calls == []  # the answer is not a tool for the caller to run
    assert resp.stop_reason == "end_turn"


async def test_output_tool_name_is_sanitized_and_bounded() -> None:
    weird = type("Result[int] with spaces" + "x" * 80, (BaseModel,), {"__annotations__": {"a": int}})
    server = Server(message([{"type": "text", "text": "{}"}]))
    await backend(server).complete(simple(output=weird))
    name = server.body()["tool_choice"]["name"]
    assert len(name) <= 64
    assert name.startswith("submit_Result_int__with_spaces")
    assert all(c.isalnum() or c in "_-" for c in name)


async def test_tool_use_response() -> None:
    server = Server(
        message(
            [
                {"type": "text", "text": "I'll compute."},
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "sympy_eval",
                    "input": {"expr": "x**2"},
                },
            ],
            stop="tool_use",
        )
    )
    resp = await backend(server).complete(simple())
    assert resp.stop_reason == "tool_use"
    assert resp.tool_calls == [ToolUseBlock(id="toolu_2", name="sympy_eval", input={"expr": "x**2"})]
    assert resp.text == "I'll compute."


async def test_one_retry_layer_sdk_retries_off_session_client_retries_a_429() -> None:
    from eurekaclaw.llm.ledger import UsageLedger
    from eurekaclaw.llm.session_client import SessionLLM

    server = Server(
        error(429, "rate_limit_error", "slow down", {"retry-after-ms": "1500"}),
        message([{"type": "text", "text": "after retry"}]),
    )
    direct = backend(server, retries=5)
    assert direct.client.max_retries == 0  # the SDK never retries under ours
    with pytest.raises(LLMRetryableError) as info:
        await direct.complete(simple())
    assert info.value.reason == "rate_limited" and info.value.retry_after == 1.5
    assert len(server.requests) == 1
    sleeps: list[float] = []

    async def sleep(s: float) -> None:
        sleeps.append(s)

    server2 = Server(
        error(429, "rate_limit_error", "slow down", {"retry-after-ms": "1500"}),
        message([{"type": "text", "text": "after retry"}]),
    )
    llm = SessionLLM(backend(server2), UsageLedger(None), max_retries=2, sleep=sleep)
    resp = await llm.complete(simple())
    assert resp.text == "after retry"
    assert len(server2.requests) == 2 and sleeps == [1.5]
    assert llm.ledger.attempts == 2 and llm.ledger.calls == 1


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (429, "rate_limit_error"),
        (529, "overloaded_error"),
        (500, "api_error"),
        (503, "api_error"),
        (408, "timeout"),
    ],
)
async def test_retryable_statuses(status: int, kind: str) -> None:
    server = Server(error(status, kind, "try later", {"retry-after": "7"}))
    with pytest.raises(LLMRetryableError) as info:
        await backend(server).complete(simple())
    assert info.value.status == status
    assert info.value.retry_after == 7.0
    assert len(server.requests) == 1  # max_retries=0: the SDK did not retry


async def test_retry_after_http_date_is_parsed() -> None:
    server = Server(error(429, "rate_limit_error", "x", {"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"}))
    with pytest.raises(LLMRetryableError) as info:
        await backend(server).complete(simple())
    assert info.value.retry_after is not None and info.value.retry_after > 86_400


@pytest.mark.parametrize(("status", "kind"), [(400, "invalid_request_error"), (404, "not_found_error"), (422, "x")])
async def test_fatal_statuses(status: int, kind: str) -> None:
    server = Server(error(status, kind, "model: field required"))
    with pytest.raises(LLMFatalError) as info:
        await backend(server, retries=3).complete(simple())
    assert not isinstance(info.value, LLMAuthError)
    assert info.value.status == status
    assert "model: field required" in info.value.message
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_errors(status: int) -> None:
    server = Server(error(status, "authentication_error", f"invalid x-api-key {KEY}"))
    with pytest.raises(LLMAuthError) as info:
        await backend(server).complete(simple())
    assert info.value.status == status
    assert info.value.exit_code == 3
    assert KEY not in info.value.message  # an echoed key is hidden


async def test_classification_ignores_message_text() -> None:
    misleading = Server(error(400, "invalid_request_error", "rate limit overloaded, retry later (529)"))
    with pytest.raises(LLMFatalError):
        await backend(misleading).complete(simple())
    retryable = Server(error(429, "rate_limit_error", "invalid request: authentication failed"))
    with pytest.raises(LLMRetryableError):
        await backend(retryable).complete(simple())


async def test_connection_failure_and_timeout_are_retryable() -> None:
    refused = Server(hx.ConnectError("connection refused"))
    with pytest.raises(LLMRetryableError) as info:
        await backend(refused).complete(simple())
    assert "ConnectError" in info.value.message
    slow = Server(hx.ReadTimeout("read timed out"))
    with pytest.raises(LLMRetryableError) as info:
        await backend(slow).complete(simple())
    assert "timed out" in info.value.message


async def test_stop_at_max_tokens_is_a_truncated_output_error() -> None:
    server = Server(
        message(
            [{"type": "tool_use", "id": "t", "name": "submit_Bound", "input": {"lemma": "L1"}}],
            stop="max_tokens",
        )
    )
    b = backend(server)
    resp = await b.complete(simple(output=Bound))
    assert resp.stop_reason == "max_tokens"
    llm = SessionLLM(b, UsageLedger(None))
    with pytest.raises(LLMOutputError) as info:
        await llm.structured(simple(), Bound)
    assert info.value.kind == "truncated"
    assert len(server.requests) == 2  # no repair round for a truncated reply


async def test_schema_invalid_tool_input_then_valid_repair() -> None:
    server = Server(
        message(
            [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "submit_Bound",
                    "input": {"lemma": "L1", "constant": "big"},
                }
            ],
            stop="tool_use",
        ),
        message(
            [
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "submit_Bound",
                    "input": {"lemma": "L1", "constant": 3.0},
                }
            ],
            stop="tool_use",
        ),
    )
    llm = SessionLLM(backend(server), UsageLedger(None))
    result = await llm.structured(simple(), Bound)
    assert result == Bound(lemma="L1", constant=3.0)
    assert len(server.requests) == 2
    repair = server.body(1)
    assert repair["tool_choice"] == {"type": "tool", "name": "submit_Bound"}
    assert "constant" in repair["messages"][-1]["content"]  # the validation error is shown
    assert '"big"' in repair["messages"][-2]["content"]  # with the rejected answer


async def test_missing_key_is_a_config_error() -> None:
    from eurekaclaw.errors import MissingConfigError

    with pytest.raises(MissingConfigError):
        AnthropicBackend(Settings())
