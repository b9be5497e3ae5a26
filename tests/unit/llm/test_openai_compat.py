"""The openai_compat backend on real httpx, with HTTP served by httpx.MockTransport."""

from __future__ import annotations

import email.utils
import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from eurekaclaw.config import Settings
from eurekaclaw.errors import (
    LLMAuthError,
    LLMFatalError,
    LLMOutputError,
    LLMRetryableError,
    MissingConfigError,
)
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.openai_compat import OpenAICompatBackend, parse_retry_after
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import (
    LLMRequest,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)

BASE = "http://llm.test/v1"
KEY = "sk-compat-test-secret-0001"


class Bound(BaseModel):
    lemma: str
    constant: float


class Server:
    """Answers queued replies in order (the last one repeats) and keeps every request."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, dict):
            return httpx.Response(200, json=reply)
        status, body, headers = reply
        return httpx.Response(status, json=body, headers=headers)

    def body(self, i: int = -1) -> dict[str, Any]:
        return json.loads(self.requests[i].content)


class Sleeps(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def completion(
    content: str | None = "ok",
    finish: str = "stop",
    tool_calls: list[dict[str, Any]] | None = None,
    **usage: Any,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "qwen-test",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 7, **usage},
    }


def call(name: str, arguments: str, cid: str = "call_1") -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


class Retrying:
    """The backend as agents meet it: each `complete` is one HTTP request, and the session
    client is the one retry layer above it (LLM_MAX_RETRIES, Retry-After, backoff)."""

    def __init__(self, inner: OpenAICompatBackend, sleeps: Sleeps) -> None:
        from eurekaclaw.llm.ledger import UsageLedger
        from eurekaclaw.llm.session_client import SessionLLM

        self.inner = inner
        s = inner.settings
        self.llm = SessionLLM(
            inner,
            UsageLedger(None),
            max_retries=s.llm_max_retries,
            retry_base_s=0.5,
            retry_max_s=s.llm_retry_max_s,
            sleep=sleeps,
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def complete(self, request: LLMRequest) -> Any:
        return await self.llm.complete(request)


def backend(server: Server, sleeps: Sleeps | None = None, **settings: Any) -> Any:
    values: dict[str, Any] = {
        "openai_compat_base_url": BASE,
        "openai_compat_model": "qwen-test",
        "llm_max_retries": 3,
        **settings,
    }
    inner = OpenAICompatBackend(Settings(**values), transport=httpx.MockTransport(server))
    return Retrying(inner, sleeps if sleeps is not None else Sleeps())


def simple(**kw: Any) -> LLMRequest:
    return LLMRequest(role="prover", messages=[Message(role="user", content="Prove it.")], **kw)


async def test_request_body_messages_tools_and_auth() -> None:
    server = Server(completion("Done."))
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
                    ToolUseBlock(id="call_a", name="sympy_eval", input={"expr": "1+1"}),
                ],
            ),
            Message(
                role="user",
                content=[
                    ToolResultBlock(tool_use_id="call_a", content="2"),
                    TextBlock(text="Go on."),
                ],
            ),
        ],
        tools=[ToolSpec(name="sympy_eval", description="Evaluate", input_schema={"type": "object"})],
        temperature=0.3,
        max_tokens=321,
        tier="fast",
    )
    resp = await backend(server, openai_compat_api_key=KEY, openai_compat_fast_model="qwen-small").complete(req)
    sent = server.requests[0]
    body = server.body()
    assert str(sent.url) == f"{BASE}/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert body["model"] == "qwen-small"
    assert body["max_tokens"] == 321
    assert body["temperature"] == 0.3
    assert body["messages"] == [
        {"role": "system", "content": "You are a careful prover.\n\nMemories: none."},
        {"role": "user", "content": "Bound the regret."},
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [call("sympy_eval", '{"expr": "1+1"}', "call_a")],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": "2"},
        {"role": "user", "content": "Go on."},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "sympy_eval",
                "description": "Evaluate",
                "parameters": {"type": "object"},
            },
        }
    ]
    assert "response_format" not in body and "tool_choice" not in body
    assert resp.text == "Done."
    assert (resp.usage.input_tokens, resp.usage.output_tokens) == (50, 7)


async def test_no_key_sends_no_authorization_and_main_tier_model() -> None:
    server = Server(completion())
    b = backend(server)
    await b.complete(simple())
    assert "authorization" not in server.requests[0].headers
    assert server.body()["model"] == "qwen-test"
    assert b.model_for("fast") == "qwen-test"  # no fast model configured: the main one


async def test_structured_json_schema_mode() -> None:
    server = Server(completion('{"lemma": "L1", "constant": 2.0}'))
    resp = await backend(server).complete(simple(output=Bound))
    assert server.body()["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Bound", "schema": Bound.model_json_schema(), "strict": False},
    }
    assert resp.structured == {"lemma": "L1", "constant": 2.0}


async def test_structured_tool_mode_is_a_forced_function_call() -> None:
    server = Server(completion(None, "tool_calls", [call("submit_Bound", '{"lemma": "L2", "constant": 1.5}')]))
    resp = await backend(server, openai_compat_structured="tool").complete(simple(output=Bound))
    body = server.body()
    assert body["tool_choice"] == {"type": "function", "function": {"name": "submit_Bound"}}
    assert body["tools"][-1]["function"]["parameters"] == Bound.model_json_schema()
    assert "response_format" not in body
    assert resp.structured == {"lemma": "L2", "constant": 1.5}
    assert resp.tool_calls == [] and resp.stop_reason == "end_turn"


async def test_structured_prompt_mode_puts_schema_in_system_and_parses_text() -> None:
    server = Server(completion('Here it is:\n```json\n{"lemma": "L3", "constant": 4}\n```'))
    resp = await backend(server, openai_compat_structured="prompt").complete(
        simple(system_stable="Be exact.", output=Bound)
    )
    body = server.body()
    system = body["messages"][0]["content"]
    assert system.startswith("Be exact.\n\n")
    assert json.dumps(Bound.model_json_schema(), indent=1) in system
    assert "response_format" not in body and "tool_choice" not in body
    assert resp.structured == {"lemma": "L3", "constant": 4}


async def test_tool_calls_are_parsed() -> None:
    server = Server(
        completion(None, "tool_calls", [call("sympy_eval", '{"expr": "x**2"}'), call("bad", "{oops", "c2")])
    )
    resp = await backend(server).complete(simple())
    assert resp.stop_reason == "tool_use"
    assert resp.tool_calls == [
        ToolUseBlock(id="call_1", name="sympy_eval", input={"expr": "x**2"}),
        ToolUseBlock(id="c2", name="bad", input={}),
    ]
    assert resp.text == ""


async def test_length_is_max_tokens_and_cached_tokens_are_split_out() -> None:
    server = Server(completion("partial", "length", prompt_tokens_details={"cached_tokens": 30}))
    resp = await backend(server).complete(simple())
    assert resp.stop_reason == "max_tokens"
    assert (resp.usage.input_tokens, resp.usage.cache_read_tokens) == (20, 30)
    llm = SessionLLM(backend(Server(completion('{"lemma": "L', "length"))), UsageLedger(None))
    with pytest.raises(LLMOutputError) as info:
        await llm.structured(simple(), Bound)
    assert info.value.kind == "truncated"


async def test_429_then_success_honours_retry_after_seconds() -> None:
    sleeps = Sleeps()
    server = Server((429, {"error": {"message": "slow down"}}, {"Retry-After": "3"}), completion("after"))
    resp = await backend(server, sleeps).complete(simple())
    assert resp.text == "after"
    assert sleeps == [3.0]
    assert len(server.requests) == 2


async def test_retry_after_http_date() -> None:
    sleeps = Sleeps()
    date = email.utils.formatdate(4_102_444_800 + 60, usegmt=True)  # far future
    server = Server((503, {"error": "overloaded"}, {"Retry-After": date}), completion())
    await backend(server, sleeps, llm_retry_max_s=45.0).complete(simple())
    assert sleeps == [45.0]  # capped by LLM_RETRY_MAX_S
    assert parse_retry_after({"retry-after": date}, now=4_102_444_800) == 60.0


async def test_backoff_without_retry_after_grows_with_jitter() -> None:
    sleeps = Sleeps()
    server = Server((500, {"error": "boom"}, {}), (502, {}, {}), (504, {}, {}), completion())
    await backend(server, sleeps).complete(simple())
    assert len(sleeps) == 3
    for attempt, seconds in enumerate(sleeps):
        assert 0.5 * 0.5 * 2**attempt <= seconds <= 0.5 * 2**attempt


@pytest.mark.parametrize("status", [429, 500, 529])
async def test_retries_exhausted_raise_retryable(status: int) -> None:
    sleeps = Sleeps()
    server = Server((status, {"error": {"message": "busy"}}, {"retry-after": "2"}))
    with pytest.raises(LLMRetryableError) as info:
        await backend(server, sleeps, llm_max_retries=2).complete(simple())
    assert info.value.status == status
    assert info.value.retry_after == 2.0
    assert len(server.requests) == 3 and sleeps == [2.0, 2.0]


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_errors_are_not_retried(status: int) -> None:
    sleeps = Sleeps()
    server = Server((status, {"error": {"message": f"Incorrect API key provided: {KEY}"}}, {}))
    with pytest.raises(LLMAuthError) as info:
        await backend(server, sleeps, openai_compat_api_key=KEY).complete(simple())
    assert info.value.status == status
    assert KEY not in info.value.message
    assert len(server.requests) == 1 and sleeps == []


@pytest.mark.parametrize("status", [400, 404, 422])
async def test_other_4xx_are_fatal_with_the_server_message(status: int) -> None:
    sleeps = Sleeps()
    server = Server((status, {"error": {"message": "model 'qwen-test' does not exist"}}, {}))
    with pytest.raises(LLMFatalError) as info:
        await backend(server, sleeps).complete(simple())
    assert not isinstance(info.value, LLMAuthError)
    assert info.value.status == status
    assert "model 'qwen-test' does not exist" in info.value.message
    assert len(server.requests) == 1 and sleeps == []


async def test_classification_is_by_status_not_message() -> None:
    server = Server((400, {"error": {"message": "rate limit exceeded, please retry (429)"}}, {}))
    with pytest.raises(LLMFatalError):
        await backend(server).complete(simple())
    sleeps = Sleeps()
    server = Server((503, {"detail": "invalid api key"}, {}), completion("fine"))
    assert (await backend(server, sleeps).complete(simple())).text == "fine"


async def test_error_inside_a_200_body_is_classified_by_its_code() -> None:
    sleeps = Sleeps()
    server = Server({"error": {"code": 429, "message": "upstream rate limited"}}, completion("ok"))
    assert (await backend(server, sleeps).complete(simple())).text == "ok"
    assert len(sleeps) == 1
    with pytest.raises(LLMFatalError) as info:
        await backend(Server({"error": {"code": 400, "message": "bad tool schema"}})).complete(simple())
    assert "bad tool schema" in info.value.message


async def test_timeouts_and_connection_errors_are_retried() -> None:
    sleeps = Sleeps()
    server = Server(httpx.ReadTimeout("slow"), httpx.ConnectError("refused"), completion("back"))
    assert (await backend(server, sleeps).complete(simple())).text == "back"
    assert len(sleeps) == 2
    with pytest.raises(LLMRetryableError) as info:
        await backend(Server(httpx.ConnectError("refused")), llm_max_retries=1).complete(simple())
    assert "ConnectError" in info.value.message


async def test_own_client_timeouts() -> None:
    b = OpenAICompatBackend(
        Settings(openai_compat_base_url=BASE, openai_compat_model="m", llm_timeout_s=123.0),
        transport=httpx.MockTransport(Server(completion())),
    )
    await b.complete(simple())
    timeout = b._http().timeout
    assert (timeout.connect, timeout.read) == (10.0, 123.0)
    await b.aclose()


async def test_schema_invalid_then_valid_repair_through_session_llm() -> None:
    server = Server(completion('{"lemma": "L1"}'), completion('{"lemma": "L1", "constant": 0.5}'))
    llm = SessionLLM(backend(server), UsageLedger(None))
    assert await llm.structured(simple(), Bound) == Bound(lemma="L1", constant=0.5)
    repair = server.body(1)["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"lemma": "L1"}'}
    assert "constant" in repair[-1]["content"] and repair[-1]["role"] == "user"
    assert server.body(1)["response_format"]["json_schema"]["name"] == "Bound"


async def test_missing_configuration() -> None:
    with pytest.raises(MissingConfigError):
        OpenAICompatBackend(Settings(openai_compat_base_url=BASE))


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after": "-4"}) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    past = email.utils.formatdate(1_000_000_000, usegmt=True)
    assert parse_retry_after({"retry-after": past}, now=1_000_000_100) == 0.0
