"""The anthropic backend's streamed replies through the real SDK, the HTTP served by a
MockTransport in the documented event-stream format (message_start, content_block_start,
content_block_delta, content_block_stop, message_delta with usage, message_stop)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import pytest
from pydantic import BaseModel

from eurekaclaw.config import Settings
from eurekaclaw.errors import LLMFatalError, LLMRetryableError
from eurekaclaw.llm.anthropic_backend import AnthropicBackend, sdk_httpx
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.streaming import watching
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.store.files import read_jsonl

KEY = "sk-ant-test-0123456789abcdef"
hx = sdk_httpx()
TEXT = ["By induction ", "on n, the base ", "case holds and the step follows."]


class Bound(BaseModel):
    lemma: str
    constant: float


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def start(input_tokens: int = 150, cache_read: int = 40) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": 1,
                "cache_read_input_tokens": cache_read,
                "cache_creation_input_tokens": 0,
            },
        },
    }


def text_events(pieces: list[str]) -> list[dict[str, Any]]:
    return [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}} for p in pieces),
        {"type": "content_block_stop", "index": 0},
    ]


def end(stop: str = "end_turn", output_tokens: int = 27) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


class Server:
    def __init__(self, *bodies: bytes | tuple[int, dict[str, Any]]) -> None:
        self.bodies = list(bodies)
        self.requests: list[Any] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(request)
        body = self.bodies.pop(0)
        if isinstance(body, tuple):
            return hx.Response(body[0], json=body[1])
        return hx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def session(server: Server, tmp_path: Path, stream: str = "true") -> SessionLLM:
    settings = Settings(anthropic_api_key=KEY, llm_stream=stream)
    client = anthropic.DefaultAsyncHttpxClient(transport=hx.MockTransport(server))
    return SessionLLM(
        AnthropicBackend(settings, http_client=client),
        UsageLedger(tmp_path / "usage.json"),
        tmp_path / "llm_log.jsonl",
        max_retries=2,
        sleep=_no_sleep,
    )


async def _no_sleep(seconds: float) -> None:
    return None


def ask() -> LLMRequest:
    return LLMRequest(
        role="prover",
        system_stable="You prove lemmas.",
        messages=[Message(role="user", content="Prove lemma 3.")],
        max_tokens=512,
    )


async def test_streamed_text_usage_and_progress(tmp_path: Path) -> None:
    server = Server(sse(start(), *text_events(TEXT), *end()))
    llm = session(server, tmp_path)
    seen: list[int] = []
    with watching(seen.append):
        response = await llm.complete(ask())
    assert json.loads(server.requests[0].content)["stream"] is True
    assert response.text == "".join(TEXT) and response.stop_reason == "end_turn"
    u = response.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens) == (150, 27, 40)
    usage = json.loads((tmp_path / "usage.json").read_text())
    assert usage["calls"] == 1 and usage["total"]["output_tokens"] == 27 and usage["cost_usd"] > 0
    assert seen and seen[-1] == -(-len("".join(TEXT)) // 4)
    assert read_jsonl(tmp_path / "llm_log.jsonl")[0]["response"]["text"] == "".join(TEXT)


async def test_streamed_structured_output_is_the_forced_tool_input(tmp_path: Path) -> None:
    args = json.dumps({"lemma": "L3", "constant": 2.5})
    tool = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "tu_1", "name": "submit_Bound", "input": {}},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": args[:9]}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": args[9:]}},
        {"type": "content_block_stop", "index": 0},
    ]
    llm = session(Server(sse(start(), *tool, *end("tool_use"))), tmp_path)
    assert await llm.structured(ask(), Bound) == Bound(lemma="L3", constant=2.5)


async def test_a_stream_without_message_stop_is_retried_and_recorded(tmp_path: Path) -> None:
    cut = sse(start(), *text_events(TEXT[:2]))  # the connection ended before the message did
    server = Server(cut, sse(start(), *text_events(TEXT), *end()))
    llm = session(server, tmp_path)
    response = await llm.complete(ask())
    assert response.text == "".join(TEXT) and len(server.requests) == 2
    usage = json.loads((tmp_path / "usage.json").read_text())
    assert usage["retries_by_reason"] == {"stream_cut": 1} and usage["failed_attempts"] == 1
    first = read_jsonl(tmp_path / "llm_log.jsonl")[0]
    assert first["retry_reason"] == "stream_cut"
    assert first["billed_usage"]["input_tokens"] == 150 and first["billed_usage"]["output_tokens"] > 0


async def test_an_overloaded_error_event_inside_a_stream_is_retryable(tmp_path: Path) -> None:
    overloaded = sse(start(), {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    llm = session(Server(overloaded), tmp_path)
    with pytest.raises(LLMRetryableError) as info:
        await llm.backend.complete(ask())
    assert info.value.reason == "overloaded"


async def test_stream_false_keeps_the_whole_reply(tmp_path: Path) -> None:
    whole = {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 2},
    }
    server = Server((200, whole))
    response = await session(server, tmp_path, stream="false").complete(ask())
    assert response.text == "ok" and "stream" not in json.loads(server.requests[0].content)


async def test_a_transport_error_mid_stream_is_a_stream_cut(tmp_path: Path) -> None:
    async def broken() -> Any:
        yield sse(start(), *text_events(TEXT[:1]))
        raise hx.ReadError("connection reset by peer")

    def reply(request: Any) -> Any:
        return hx.Response(200, headers={"content-type": "text/event-stream"}, content=broken())

    client = anthropic.DefaultAsyncHttpxClient(transport=hx.MockTransport(reply))
    backend = AnthropicBackend(Settings(anthropic_api_key=KEY, llm_stream="true"), http_client=client)
    with pytest.raises(LLMRetryableError) as info:
        await backend.complete(ask())
    assert info.value.reason == "stream_cut" and "ReadError" in info.value.message
    assert info.value.usage.input_tokens == 150  # type: ignore[attr-defined]


class _Broken(hx.AsyncByteStream):
    """Sends `first`, then the connection fails with `exc`."""

    def __init__(self, first: bytes, exc: Exception) -> None:
        self.first, self.exc = first, exc

    async def __aiter__(self) -> Any:
        yield self.first
        raise self.exc


def _backend(body: bytes | Any) -> AnthropicBackend:
    def handler(request: Any) -> Any:
        kind = {"content": body} if isinstance(body, bytes) else {"stream": body}
        return hx.Response(200, headers={"content-type": "text/event-stream"}, **kind)

    client = anthropic.DefaultAsyncHttpxClient(transport=hx.MockTransport(handler))
    return AnthropicBackend(Settings(anthropic_api_key=KEY, llm_stream="true"), http_client=client)


HALF = sse(start(), *text_events(["x" * 400] * 5)[:-1])  # five deltas, no block or message end
TEAR_DOWN = [
    pytest.param(_Broken(HALF, hx.ReadTimeout("read timed out")), "timeout", id="timeout"),
    pytest.param(
        HALF + b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        "overloaded",
        id="error-event",
    ),
    pytest.param(
        HALF + b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"te\n\n',
        "stream_cut",
        id="torn-json",
    ),
]


@pytest.mark.parametrize(("body", "reason"), TEAR_DOWN)
async def test_a_stream_broken_after_message_start_is_retryable_and_billed(body: Any, reason: str) -> None:
    with pytest.raises(LLMRetryableError) as caught:
        await _backend(body).complete(ask())
    err = caught.value
    assert err.reason == reason
    assert err.usage is not None and (err.usage.input_tokens, err.usage.output_tokens) == (150, 500)


async def test_a_refusal_event_after_message_start_is_fatal_and_billed() -> None:
    refusal = b'event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"refused"}}\n\n'
    with pytest.raises(LLMFatalError) as caught:
        await _backend(HALF + refusal).complete(ask())
    usage = caught.value.usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (150, 500)


async def test_a_token_display_that_raises_does_not_hide_the_reply_or_its_cut() -> None:
    def broken(tokens: int) -> None:
        raise RuntimeError("display broke")

    with watching(broken):
        response = await _backend(sse(start(), *text_events(["a", "b"]), *end())).complete(ask())
        assert response.text == "ab"
        with pytest.raises(LLMRetryableError) as caught:
            await _backend(_Broken(sse(start()), hx.RemoteProtocolError("peer closed"))).complete(ask())
    assert caught.value.reason == "stream_cut"
